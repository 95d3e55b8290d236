/** `pitroom stop` and `pitroom revert`, declared beside their code (control.ts). */
import { defineCommand, flag, JSON_FLAG, RUN_SELECTION, SCOPE_FLAG } from "./command.ts";

export const STOP_FLAGS = {
  group: flag.string({ short: "g", value: "NAME", describe: "stop this group" }),
  json: JSON_FLAG,
  dir: SCOPE_FLAG,
};

export const STOP = defineCommand({
  name: "stop",
  summary: "stop queued or running runs (kills the workers' process groups)",
  flags: STOP_FLAGS,
  args: [{ ...RUN_SELECTION, variadic: true }],
  examples: ["pitroom stop 3f2a", "pitroom stop -g fixes"],
  run: () => import("./control.ts").then((m) => m.stopCommand),
});

export const REVERT_FLAGS = {
  all: flag.boolean({
    describe: "also undo files changed while the run worked, not by a tool the worker called",
  }),
  force: flag.boolean({
    describe: "revert although HEAD or the index moved while the run worked",
  }),
  json: JSON_FLAG,
  dir: SCOPE_FLAG,
};

export const REVERT = defineCommand({
  name: "revert",
  summary: "undo exactly the changes a write run's tools made (checked first)",
  flags: REVERT_FLAGS,
  args: [{ ...RUN_SELECTION, required: true }],
  examples: ["pitroom revert 3f2a", "pitroom revert 3f2a --all", "pitroom revert 3f2a --force"],
  run: () => import("./control.ts").then((m) => m.revertCommand),
});
