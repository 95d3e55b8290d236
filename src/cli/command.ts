/**
 * Commands declared as data: name, summary, flags with types and defaults, arguments, examples.
 * Help and parsing are generated from the declaration, so commands cannot drift apart.
 */
import type { Sys } from "../sys/mod.ts";

/** A flag's value type. */
export type FlagType = "boolean" | "string" | "duration" | "number" | "strings";

/** One flag. */
export interface FlagDef {
  name: string;
  short?: string;
  type: FlagType;
  describe: string;
  /** Shown in help as the value's name. */
  value?: string;
  default?: string | boolean | number;
  /** A number flag: the least value it takes. */
  min?: number;
  /** A number flag: whole numbers only. */
  integer?: boolean;
}

/** The longest duration a flag takes (a timer cannot wait longer without overflowing). */
export const MAX_DURATION = { text: "7d", ms: 7 * 24 * 3600 * 1000 } as const;

/** One positional argument. */
export interface ArgDef {
  name: string;
  describe: string;
  required?: boolean;
  variadic?: boolean;
}

/** Parsed flag values, by flag name. */
export type FlagValues = Record<string, string | boolean | number | string[] | undefined>;

/** What a command receives. */
export interface Invocation {
  sys: Sys;
  flags: FlagValues;
  args: string[];
}

/** A command's implementation: returns the exit code. */
export type CommandRun = (inv: Invocation) => Promise<number>;

/** A command, declared. */
export interface CommandDef {
  name: string;
  summary: string;
  /** Longer description for `--help`. */
  description?: string;
  flags: FlagDef[];
  args: ArgDef[];
  examples: string[];
  hidden?: boolean;
  /** Loads the implementation lazily (literal specifiers keep compile happy). */
  load(): Promise<CommandRun>;
}

/** The `--json` flag every data command shares. */
export const JSON_FLAG: FlagDef = {
  name: "json",
  type: "boolean",
  describe: "print JSON for programs",
};
