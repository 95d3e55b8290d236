/** `pitroom show`, declared beside its code (show.ts). */
import { defineCommand, flag, JSON_FLAG, RUN_SELECTION, SCOPE_FLAG } from "./command.ts";

export const SHOW_FLAGS = {
  patch: flag.boolean({ describe: "print the exact diff the worker made" }),
  events: flag.boolean({ describe: "print the run's events as JSON lines" }),
  full: flag.boolean({
    describe: "print a long answer and every changed file (clipped by default)",
  }),
  json: JSON_FLAG,
  dir: SCOPE_FLAG,
};

export const SHOW = defineCommand({
  name: "show",
  summary: "print a run's report, patch or events",
  flags: SHOW_FLAGS,
  args: [RUN_SELECTION],
  examples: [
    "pitroom show",
    "pitroom show last --patch",
    "pitroom show last --full",
    "pitroom show 3f2a --json",
  ],
  run: () => import("./show.ts").then((m) => m.showCommand),
});
