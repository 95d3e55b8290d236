/** `pitroom run`, declared beside its code (run.ts). */
import { defineCommand, flag, JSON_FLAG } from "./command.ts";

export const RUN_FLAGS = {
  read: flag.boolean({ short: "r", describe: "read-only run (the default)" }),
  write: flag.boolean({ short: "w", describe: "edit files in place" }),
  isolate: flag.boolean({
    short: "i",
    describe: "work in a private copy; the run keeps a patch for `pitroom apply`",
  }),
  link: flag.repeated({
    value: "DIRS",
    describe: "with -i: symlink these ignored folders into the copy (node_modules,.venv)",
  }),
  host: flag.string({
    short: "H",
    value: "HOST",
    describe: 'with -i: run the worker on a host of the config\'s "hosts" (SSH or a container)',
  }),
  "allow-links": flag.boolean({
    describe: "with -i and no sandbox: run even though links in the tree lead out of the copy",
  }),
  "allow-secrets": flag.boolean({
    describe: "with -w or -i: the worker may read the tree's secret files (.env, keys)",
  }),
  worker: flag.string({
    short: "W",
    value: "CHAIN",
    describe: "worker or chain: opencode, codex:gpt-5.5,claude",
  }),
  model: flag.string({ short: "m", value: "MODEL", describe: "model of the first worker" }),
  effort: flag.string({ value: "LEVEL", describe: "reasoning effort (low, medium, high, ...)" }),
  dir: flag.string({
    short: "d",
    value: "DIR",
    describe: "directory to work in, and whose runs `--continue last` means (default: current)",
  }),
  timeout: flag.duration({
    short: "t",
    value: "DUR",
    describe: "kill the worker after this long (default 30m, or the config's timeout; at most 7d)",
  }),
  group: flag.string({ short: "g", value: "NAME", describe: "add the run to a group" }),
  web: flag.boolean({ describe: "allow the worker to fetch web pages" }),
  verify: flag.string({
    value: "CMD",
    describe: "after the worker succeeds, run CMD in its tree; failing is exit 6",
  }),
  bg: flag.boolean({ describe: "run in the background: print the run id and return" }),
  "task-file": flag.string({ value: "FILE", describe: "read the task from a file" }),
  file: flag.repeated({
    short: "f",
    value: "FILE",
    describe: "attach a file to the task (repeatable; its path and text go in the prompt)",
  }),
  "no-fallback": flag.boolean({ describe: "do not move along the fallback chain" }),
  park: flag.boolean({
    describe:
      "when every worker of the chain is out of quota, wait (within --timeout) for the first to come back instead of failing",
  }),
  fresh: flag.boolean({
    describe: "ask a worker again instead of reusing a cached answer of the same question",
  }),
  audit: flag.boolean({
    describe: "have another worker audit the answer once the run is done (read runs)",
  }),
  "no-audit": flag.boolean({
    describe: "never audit this run, whatever the config's audit sample rate",
  }),
  "max-tokens": flag.number({
    value: "N",
    describe: "stop the worker once it burned this many tokens (its work is kept)",
  }),
  "max-cost": flag.number({
    value: "USD",
    describe: "stop the worker once it cost this much (reported, else estimated)",
  }),
  "max-steps": flag.number({ value: "N", describe: "stop the worker after this many steps" }),
  tier: flag.string({
    value: "TIER",
    describe: "use the worker of a tier: cheap, standard, capable, review, audit",
  }),
  continue: flag.string({
    value: "RUN",
    describe: "follow up on a finished run (or `last`) in the same worker session",
  }),
  plan: flag.string({
    value: "PLAN",
    describe: "with --step: give the worker task N's implementer brief (the task is the notes)",
  }),
  step: flag.number({
    value: "N",
    min: 1,
    integer: true,
    describe: "with --plan: the task's number",
  }),
  json: JSON_FLAG,
};

export const RUN = defineCommand({
  name: "run",
  summary: "give a task to a worker (read-only by default)",
  description: [
    "The task comes from the arguments, from stdin with `-`, or from --task-file.",
    "Read runs may not change anything: a change is undone and the run exits 5.",
    "Write runs edit in place; Pitroom records exactly what the worker changed.",
  ].join("\n"),
  flags: RUN_FLAGS,
  args: [{ name: "TASK", describe: "the task (`-` reads it from stdin)", variadic: true }],
  examples: [
    'pitroom run "Where is the retry policy defined?"',
    'pitroom run -w -W opencode "Add a --verbose flag to the CLI"',
    'pitroom run -w --verify "deno task test" "Fix the failing date test"',
    'pitroom run -i --link node_modules "Refactor the parser" && pitroom apply last',
    'pitroom run --bg -g docs "Summarise docs/architecture.md"',
    'pitroom run --continue last "Now list the callers too"',
    'pitroom run -i --plan docs/plan.md --step 2 --bg "Task 1 named the type Token"',
  ],
  run: () => import("./run.ts").then((m) => m.runCommand),
});
