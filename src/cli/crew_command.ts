/** `pitroom crew`, declared beside its code (crew.ts). */
import { defineCommand, flag } from "./command.ts";
import { RUN_FLAGS } from "./run_command.ts";

// crew starts background runs of one group: run's flags but those.
const { bg: _bg, continue: _continue, group: _group, plan: _plan, step: _step, ...shared } =
  RUN_FLAGS;

export const CREW_FLAGS = {
  ...shared,
  group: flag.string({
    short: "g",
    value: "NAME",
    describe: "the group's name (default: crew- and the time)",
  }),
};

export const CREW = defineCommand({
  name: "crew",
  summary: "start several tasks as background runs of one group",
  description: [
    "Every task becomes a background run; up to maxParallel (default 20) run at once, the",
    "rest queue. The run flags apply to every task. Tasks come from the arguments or from",
    "--task-file, separated by lines of `---`. Several in-place writers (-w) are refused:",
    "with -i each worker edits its own copy, and `pitroom apply -g NAME` lands them in order.",
  ].join("\n"),
  flags: CREW_FLAGS,
  args: [{ name: "TASK", describe: "a task (one argument each)", variadic: true }],
  examples: [
    'pitroom crew "Summarise src/store" "Summarise src/engine" "List the CLI commands"',
    "pitroom crew -i -g fixes --task-file tasks.md",
    "pitroom watch -g fixes --brief",
  ],
  run: () => import("./crew.ts").then((m) => m.crewCommand),
});
