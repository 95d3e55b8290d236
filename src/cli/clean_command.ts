/** `pitroom clean`, declared beside its code (clean.ts). */
import { defineCommand, flag, JSON_FLAG } from "./command.ts";

export const CLEAN_FLAGS = {
  days: flag.number({
    value: "N",
    default: 14,
    min: 0,
    describe: "runs that ended more than N days ago",
  }),
  yes: flag.boolean({ describe: "remove them (without it, only list them)" }),
  json: JSON_FLAG,
};

export const CLEAN = defineCommand({
  name: "clean",
  summary: "remove old finished run folders (lists them unless --yes); the history keeps them",
  description: [
    "Never removes a live run, nor an isolate run whose patch was not applied.",
    "`pitroom show RUN` still prints a removed run's report, steps and patch from the history.",
  ].join("\n"),
  flags: CLEAN_FLAGS,
  args: [],
  examples: ["pitroom clean", "pitroom clean --days 30 --yes"],
  run: () => import("./clean.ts").then((m) => m.cleanCommand),
});
