/**
 * What the shell completions know, derived from the command table: each visible command with
 * its flags and what a flag's value or the positional arguments complete to. Pure; the three
 * generators (completions_bash.ts, _zsh.ts, _fish.ts) turn it into a script.
 */
import type { CommandDef, FlagDef } from "./command.ts";
import { TIERS } from "../engine/present.ts";

/**
 * What a word completes to: values read at completion time (`runs` and `groups` from the state
 * dir, `workers`: the built-in ones and the config's own, through `pitroom __complete`), fixed
 * words, files, folders, or nothing (`free`).
 */
export type ValueKind =
  | { kind: "runs" }
  | { kind: "groups" }
  | { kind: "workers" }
  | { kind: "words"; words: string[] }
  | { kind: "files" }
  | { kind: "dirs" }
  | { kind: "free" };

/** One flag as the completions see it. */
export interface CompletionFlag {
  long: string;
  short?: string;
  describe: string;
  /** What its value completes to; null for a boolean flag. */
  value: ValueKind | null;
}

/** One command as the completions see it. */
export interface CompletionCommand {
  name: string;
  summary: string;
  flags: CompletionFlag[];
  /** What its positional arguments complete to. */
  args: ValueKind;
}

/** The kinds `pitroom __complete KIND` prints. */
export const DYNAMIC_KINDS = ["runs", "groups", "workers"] as const;

/** Subcommand words a command's first argument takes (`history stats`, `plan status`). */
const SUBCOMMANDS: Record<string, string[]> = {
  history: ["stats", "import"],
  plan: ["status", "note"],
};

function flagValue(flag: FlagDef): ValueKind | null {
  if (flag.type === "boolean") return null;
  if (flag.type === "enum") return { kind: "words", words: [...flag.values] };
  switch (flag.name) {
    case "group":
      return { kind: "groups" };
    case "continue":
      return { kind: "runs" };
    case "worker":
      return { kind: "workers" };
    case "tier":
      return { kind: "words", words: [...TIERS] };
    case "dir":
    case "link":
      return { kind: "dirs" };
    case "file":
    case "task-file":
    case "card":
    case "plan":
      return { kind: "files" };
  }
  return { kind: "free" };
}

function argsValue(def: CommandDef, visible: readonly CommandDef[]): ValueKind {
  const sub = SUBCOMMANDS[def.name];
  if (sub !== undefined) return { kind: "words", words: sub };
  const arg = def.args[0];
  switch (arg?.name) {
    case "RUN":
      return { kind: "runs" };
    case "WORKER":
      return { kind: "workers" };
    case "COMMAND":
      return { kind: "words", words: [...visible.map((c) => c.name), "events"] };
    case "SHELL":
      return { kind: "words", words: ["bash", "zsh", "fish"] };
  }
  return { kind: "free" };
}

/** The completion model of a command table (hidden commands left out). */
export function completionModel(commands: readonly CommandDef[]): CompletionCommand[] {
  const visible = commands.filter((c) => !c.hidden);
  return visible.map((def) => ({
    name: def.name,
    summary: def.summary,
    flags: [
      ...def.flags.map((f) => ({
        long: f.name,
        ...(f.short === undefined ? {} : { short: f.short }),
        describe: f.describe,
        value: flagValue(f),
      })),
      { long: "help", short: "h", describe: "show help for this command", value: null },
    ],
    args: argsValue(def, visible),
  }));
}
