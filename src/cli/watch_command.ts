/** `pitroom watch`, declared beside its code (watch.ts). */
import { defineCommand, flag, RUN_SELECTION, SCOPE_FLAG } from "./command.ts";

export const WATCH_FLAGS = {
  group: flag.string({ short: "g", value: "NAME", describe: "follow this group" }),
  json: flag.boolean({ describe: "one JSON line per change, for programs" }),
  brief: flag.boolean({
    describe: "one line when a run starts and one when it ends (for a monitor tool)",
  }),
  interval: flag.number({
    value: "S",
    default: 1,
    min: 0,
    describe: "seconds between two progress lines of a run (or table redraws); 0: every step",
  }),
  timeout: flag.duration({
    value: "DUR",
    describe: "stop watching after this long (exit 75 while runs go on; at most 7d)",
  }),
  dir: SCOPE_FLAG,
};

export const WATCH = defineCommand({
  name: "watch",
  summary: "follow runs live until they end (a table, --json lines or --brief cards)",
  flags: WATCH_FLAGS,
  args: [{ ...RUN_SELECTION, variadic: true }],
  examples: [
    "pitroom watch -g fixes --json",
    "pitroom watch -g fixes --brief",
    "pitroom watch 3f2a",
  ],
  run: () => import("./watch.ts").then((m) => m.watchCommand),
});
