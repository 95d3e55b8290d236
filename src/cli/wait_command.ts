/** `pitroom wait`, declared beside its code (wait.ts). */
import { defineCommand, flag, JSON_FLAG, RUN_SELECTION, SCOPE_FLAG } from "./command.ts";

export const WAIT_FLAGS = {
  any: flag.boolean({ describe: "return when the first run finishes" }),
  brief: flag.boolean({ describe: "one line per run instead of the full report" }),
  timeout: flag.duration({
    value: "DUR",
    default: "540",
    describe: "give up after this long (exit 75; at most 7d)",
  }),
  group: flag.string({ short: "g", value: "NAME", describe: "wait for this group" }),
  json: JSON_FLAG,
  dir: SCOPE_FLAG,
};

export const WAIT = defineCommand({
  name: "wait",
  summary: "wait for runs to finish and print their reports",
  description: [
    "Exit 75 while anything is still going after --timeout, otherwise the exit code of the first",
    "failing run. On a terminal one line shows the runs going on until they end (done, running,",
    "queued, tokens, time; one run: its steps and last action); piped or with --json, nothing but",
    "the reports.",
  ].join("\n"),
  flags: WAIT_FLAGS,
  args: [{ ...RUN_SELECTION, variadic: true }],
  examples: ["pitroom wait 3f2a", "pitroom wait -g docs --brief", "pitroom wait --any a1 b2"],
  run: () => import("./wait.ts").then((m) => m.waitCommand),
});
