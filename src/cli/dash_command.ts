/** `pitroom dash`, declared beside its code (dash.ts). */
import { defineCommand, flag, JSON_FLAG } from "./command.ts";

export const DASH_FLAGS = {
  detach: flag.boolean({ describe: "run in the background and print the address" }),
  port: flag.number({
    value: "N",
    min: 1,
    integer: true,
    describe: "listen on this port (default 7878, or the next free one)",
  }),
  open: flag.boolean({ describe: "open the page in the system browser" }),
  stop: flag.boolean({ describe: "stop the running dashboard" }),
  idle: flag.duration({
    value: "DUR",
    describe: 'stop after this long without a request and no run going (default: "dashIdle", 15m)',
  }),
  json: JSON_FLAG,
};

export const DASH = defineCommand({
  name: "dash",
  summary: "a live page of every run on 127.0.0.1 (history and stats too)",
  description: [
    "Serves the dashboard on 127.0.0.1:7878 (the next free port when it is taken, unless",
    "--port). --detach starts it in the background, or reuses the one running, and prints its",
    "address; one serves a state dir at a time, and every start finds the live one. It stops",
    "itself after --idle without a request while no run is going; --stop ends it. The browser",
    "opens only with --open. Stop and Discard are the page's only writes.",
  ].join("\n"),
  flags: DASH_FLAGS,
  args: [],
  examples: ["pitroom dash --detach", "pitroom dash --open", "pitroom dash --stop"],
  run: () => import("./dash.ts").then((m) => m.dashCommand),
});
