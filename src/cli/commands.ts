/**
 * Every command, declared as data. Implementations load lazily.
 */
import { type CommandDef, JSON_FLAG } from "./command.ts";

const RUN_SELECTION = { name: "RUN", describe: "run id (or a unique part of it, or `last`)" };

/** The command table. */
export const COMMANDS: readonly CommandDef[] = [
  {
    name: "run",
    summary: "give a task to a worker (read-only by default)",
    description: [
      "The task comes from the arguments, from stdin with `-`, or from --task-file.",
      "Read runs may not change anything: a change is undone and the run exits 5.",
      "Write runs edit in place; Pitroom records exactly what the worker changed.",
    ].join("\n"),
    flags: [
      { name: "read", short: "r", type: "boolean", describe: "read-only run (the default)" },
      { name: "write", short: "w", type: "boolean", describe: "edit files in place" },
      {
        name: "worker",
        short: "W",
        type: "string",
        value: "CHAIN",
        describe: "worker or chain: opencode, codex:gpt-5.5,claude",
      },
      {
        name: "model",
        short: "m",
        type: "string",
        value: "MODEL",
        describe: "model of the first worker",
      },
      {
        name: "effort",
        type: "string",
        value: "LEVEL",
        describe: "reasoning effort (low, medium, high, ...)",
      },
      {
        name: "dir",
        short: "d",
        type: "string",
        value: "DIR",
        describe: "directory to work in (default: current)",
      },
      {
        name: "timeout",
        short: "t",
        type: "duration",
        value: "DUR",
        describe: "kill the worker after this long (default 30m, or the config's timeout)",
      },
      {
        name: "group",
        short: "g",
        type: "string",
        value: "NAME",
        describe: "add the run to a group",
      },
      { name: "web", type: "boolean", describe: "allow the worker to fetch web pages" },
      {
        name: "verify",
        type: "string",
        value: "CMD",
        describe: "after the worker succeeds, run CMD in its tree; failing is exit 6",
      },
      {
        name: "bg",
        type: "boolean",
        describe: "run in the background: print the run id and return",
      },
      { name: "task-file", type: "string", value: "FILE", describe: "read the task from a file" },
      { name: "no-fallback", type: "boolean", describe: "do not move along the fallback chain" },
      {
        name: "tier",
        type: "string",
        value: "TIER",
        describe: "use the worker of a tier: cheap, standard, capable, review, audit",
      },
      {
        name: "continue",
        type: "string",
        value: "RUN",
        describe: "follow up on a finished run (or `last`) in the same worker session",
      },
      JSON_FLAG,
    ],
    args: [{ name: "TASK", describe: "the task (`-` reads it from stdin)", variadic: true }],
    examples: [
      'pitroom run "Where is the retry policy defined?"',
      'pitroom run -w -W opencode "Add a --verbose flag to the CLI"',
      'pitroom run -w --verify "deno task test" "Fix the failing date test"',
      'pitroom run --bg -g docs "Summarise docs/architecture.md"',
      'pitroom run --continue last "Now list the callers too"',
    ],
    load: () => import("./run.ts").then((m) => m.runCommand),
  },
  {
    name: "status",
    summary: "show runs and their state",
    flags: [{
      name: "group",
      short: "g",
      type: "string",
      value: "NAME",
      describe: "only this group",
    }, JSON_FLAG],
    args: [{ ...RUN_SELECTION, variadic: true }],
    examples: ["pitroom status", "pitroom status 20261130-101500-3f2a --json"],
    load: () => import("./status.ts").then((m) => m.statusCommand),
  },
  {
    name: "ls",
    summary: "list runs, newest first",
    flags: [
      { name: "running", type: "boolean", describe: "only queued and running runs" },
      { name: "group", short: "g", type: "string", value: "NAME", describe: "only this group" },
      {
        name: "limit",
        short: "n",
        type: "number",
        value: "N",
        default: 20,
        describe: "at most this many",
      },
      JSON_FLAG,
    ],
    args: [],
    examples: ["pitroom ls", "pitroom ls --running --json"],
    load: () => import("./status.ts").then((m) => m.lsCommand),
  },
  {
    name: "show",
    summary: "print a run's report, patch or events",
    flags: [
      { name: "patch", type: "boolean", describe: "print the exact diff the worker made" },
      { name: "events", type: "boolean", describe: "print the run's events as JSON lines" },
      JSON_FLAG,
    ],
    args: [{ ...RUN_SELECTION, name: "RUN" }],
    examples: ["pitroom show", "pitroom show last --patch", "pitroom show 3f2a --json"],
    load: () => import("./show.ts").then((m) => m.showCommand),
  },
  {
    name: "wait",
    summary: "wait for runs to finish and print their reports",
    flags: [
      { name: "any", type: "boolean", describe: "return when the first run finishes" },
      { name: "brief", type: "boolean", describe: "one line per run instead of the full report" },
      {
        name: "timeout",
        type: "duration",
        value: "DUR",
        default: "540",
        describe: "give up after this long (exit 75)",
      },
      { name: "group", short: "g", type: "string", value: "NAME", describe: "wait for this group" },
      JSON_FLAG,
    ],
    args: [{ ...RUN_SELECTION, variadic: true }],
    examples: ["pitroom wait 3f2a", "pitroom wait -g docs --brief", "pitroom wait --any a1 b2"],
    load: () => import("./wait.ts").then((m) => m.waitCommand),
  },
  {
    name: "stop",
    summary: "stop a queued or running run (kills the worker's process group)",
    flags: [JSON_FLAG],
    args: [{ ...RUN_SELECTION, required: true }],
    examples: ["pitroom stop 3f2a"],
    load: () => import("./control.ts").then((m) => m.stopCommand),
  },
  {
    name: "revert",
    summary: "undo exactly the changes a write run made (checked first)",
    flags: [JSON_FLAG],
    args: [{ ...RUN_SELECTION, required: true }],
    examples: ["pitroom revert 3f2a"],
    load: () => import("./control.ts").then((m) => m.revertCommand),
  },
  {
    name: "models",
    summary: "list each installed worker's models, effort levels, your costs and usage",
    flags: [
      {
        name: "all",
        type: "boolean",
        describe: "include models you have never used or configured",
      },
      JSON_FLAG,
    ],
    args: [{ name: "WORKER", describe: "only this worker (opencode, codex, claude, gemini)" }],
    examples: ["pitroom models", "pitroom models opencode --all", "pitroom models --json"],
    load: () => import("./models.ts").then((m) => m.modelsCommand),
  },
  {
    name: "cooldown",
    summary: "show (or clear) workers cooling down after a rate limit or quota",
    flags: [{ name: "clear", type: "boolean", describe: "forget every cooldown now" }, JSON_FLAG],
    args: [],
    examples: ["pitroom cooldown", "pitroom cooldown --clear"],
    load: () => import("./cooldown.ts").then((m) => m.cooldownCommand),
  },
  {
    name: "doctor",
    summary: "check each worker: installed, version, config, fallback",
    flags: [
      { name: "probe", type: "boolean", describe: "make one tiny real run per configured worker" },
      JSON_FLAG,
    ],
    args: [],
    examples: ["pitroom doctor", "pitroom doctor --probe --json"],
    load: () => import("./doctor.ts").then((m) => m.doctorCommand),
  },
  {
    name: "init",
    summary: "propose a starter config from the installed workers (writes only with --yes)",
    flags: [
      { name: "model", type: "string", value: "ID", describe: "default model of the first worker" },
      { name: "fallback", type: "string", value: "A,B", describe: "fallback targets, in order" },
      { name: "yes", type: "boolean", describe: "write the config file" },
      { name: "force", type: "boolean", describe: "replace an existing config (a backup is kept)" },
      JSON_FLAG,
    ],
    args: [],
    examples: ["pitroom init", "pitroom init --fallback codex,claude --yes"],
    load: () => import("./init.ts").then((m) => m.initCommand),
  },
  {
    name: "config",
    summary: "show every effective setting and where it comes from",
    flags: [JSON_FLAG],
    args: [],
    examples: ["pitroom config", "pitroom config --json"],
    load: () => import("./config_command.ts").then((m) => m.configCommand),
  },
  {
    name: "help",
    summary: "show help for pitroom or a command",
    flags: [],
    args: [{ name: "COMMAND", describe: "the command to explain, or `events`" }],
    examples: ["pitroom help run", "pitroom help events"],
    load: () => import("./help_command.ts").then((m) => m.helpCommand),
  },
  {
    name: "__supervise",
    summary: "run a background run's supervisor (internal)",
    flags: [],
    args: [{ name: "RUN", describe: "run id", required: true }],
    examples: [],
    hidden: true,
    load: () => import("./supervise.ts").then((m) => m.superviseCommand),
  },
];

/** Finds a command by name. */
export function findCommand(name: string): CommandDef | undefined {
  return COMMANDS.find((c) => c.name === name);
}
