/**
 * Commands declared as data, with typed flags. Each command's `*_command.ts`, beside its code,
 * calls `defineCommand({ name, summary, flags, args, examples, run })`; the flags' declaration
 * types what `run` receives (`--limit` a number, `--link` a list), and help, the completions and
 * the CLI reference (docs/cli.md) read the same declarations, so commands cannot drift apart.
 * `run` imports the command's code lazily (a literal specifier, so compile and bundle see it).
 */
import type { Sys } from "../sys/mod.ts";
import { parseInput } from "./parse.ts";

interface FlagBase {
  short?: string;
  describe: string;
}

interface ValuedFlag extends FlagBase {
  /** Shown in help as the value's name. */
  value: string;
  /** Leaving the flag out is a usage error. */
  required?: boolean;
}

/** A flag that is on when given. */
export interface BooleanFlag extends FlagBase {
  type: "boolean";
}

/** A flag that takes a word. */
export interface StringFlag extends ValuedFlag {
  type: "string";
  default?: string;
}

/** A number; `min` and `integer` bound it. */
export interface NumberFlag extends ValuedFlag {
  type: "number";
  default?: number;
  /** The least value it takes. */
  min?: number;
  /** Whole numbers only. */
  integer?: boolean;
}

/** A duration (`90s`, `30m`, `1h`; at most 7d), given to the command in milliseconds. */
export interface DurationFlag extends ValuedFlag {
  type: "duration";
  default?: string;
}

/** A flag that may be given many times; the command gets the list. */
export interface RepeatedFlag extends ValuedFlag {
  type: "repeated";
}

/** One of a fixed set of words. */
export interface EnumFlag extends ValuedFlag {
  type: "enum";
  values: readonly string[];
  default?: string;
}

/** One flag's declaration. */
export type FlagSpec =
  | BooleanFlag
  | StringFlag
  | NumberFlag
  | DurationFlag
  | RepeatedFlag
  | EnumFlag;

/** A command's flags by name, in the order help lists them. */
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** A flag with its name, as help, the completions and the parser list them. */
export type FlagDef = FlagSpec & { readonly name: string };

/** The flags of a command that has none. */
export type NoFlags = Record<never, FlagSpec>;

/** A declaration builder of one flag type: it keeps the literal options, so the value is typed. */
function builder<T extends FlagSpec["type"]>(type: T) {
  return <const O extends Omit<Extract<FlagSpec, { type: T }>, "type">>(o: O): O & { type: T } => ({
    type,
    ...o,
  });
}

/** The flag declarations (`flag.number({ value: "N", min: 1, describe })`). */
export const flag = {
  boolean: builder("boolean"),
  string: builder("string"),
  number: builder("number"),
  duration: builder("duration"),
  repeated: builder("repeated"),
  enum: builder("enum"),
};

/** The value a flag's declaration gives the command. */
type ValueOf<S> = S extends { type: "boolean" } ? boolean
  : S extends { type: "repeated" } ? string[]
  : S extends { type: "number" | "duration" } ? number
  : S extends { type: "enum"; values: readonly (infer V)[] } ? V
  : string;

/** The flags that always have a value: those with a default and the required ones. */
type AlwaysSet<F> = {
  [K in keyof F]: F[K] extends { default: unknown } | { required: true } ? K : never;
}[keyof F];

/**
 * The values a command receives, typed from its flags: a flag given (or defaulted, or required)
 * has its value; one left out is absent.
 */
export type FlagValuesOf<F extends FlagSpecs> =
  & { readonly [K in AlwaysSet<F>]: ValueOf<F[K]> }
  & { readonly [K in Exclude<keyof F, AlwaysSet<F>>]?: ValueOf<F[K]> };

/** One flag's value, whatever its type. */
export type FlagValue = string | boolean | number | string[];

/** What a command receives. */
export interface Invocation<F extends FlagSpecs> {
  sys: Sys;
  flags: FlagValuesOf<F>;
  args: string[];
}

/** A command's code: returns the exit code. */
export type CommandRun<F extends FlagSpecs> = (inv: Invocation<F>) => Promise<number>;

/** One positional argument. */
export interface ArgDef {
  name: string;
  describe: string;
  required?: boolean;
  variadic?: boolean;
}

/** What a command's module declares. */
export interface CommandDecl<F extends FlagSpecs> {
  name: string;
  summary: string;
  /** Longer description for `--help`. */
  description?: string;
  flags: F;
  args: readonly ArgDef[];
  examples: readonly string[];
  hidden?: boolean;
  /** Loads the command's code. */
  run(): Promise<CommandRun<F>>;
}

/** A command line read against its command. */
export interface ParsedCommand {
  flags: Readonly<Record<string, FlagValue>>;
  args: string[];
  /** `-h` or `--help` was given: print the help instead. */
  help: boolean;
  /** Loads the command's code and runs it on this input. */
  run(sys: Sys): Promise<number>;
}

/** A declared command, as the list, help and the completions read it. */
export interface CommandDef {
  readonly name: string;
  readonly summary: string;
  readonly description?: string;
  readonly flags: readonly FlagDef[];
  readonly args: readonly ArgDef[];
  readonly examples: readonly string[];
  readonly hidden?: boolean;
  /** Reads argv (no effects); bad input is a usage error (exit 2). */
  parse(argv: readonly string[]): ParsedCommand;
}

/** Declares a command: its flags type what `run`'s code receives. */
export function defineCommand<F extends FlagSpecs>(decl: CommandDecl<F>): CommandDef {
  const { flags: specs, run, ...about } = decl;
  const def: CommandDef = {
    ...about,
    flags: Object.entries(specs).map(([name, spec]): FlagDef => ({ name, ...spec })),
    parse(argv) {
      const input = parseInput(def, specs, argv);
      return {
        ...input,
        run: async (sys) => await (await run())({ sys, flags: input.flags, args: input.args }),
      };
    },
  };
  return def;
}

/** The `--json` flag every data command shares. */
export const JSON_FLAG = flag.boolean({ describe: "print JSON for programs" });

/** `-d DIR` of the commands that pick runs. */
export const SCOPE_FLAG = flag.string({
  short: "d",
  value: "DIR",
  describe:
    "the repository whose runs `last`, id parts and -g mean (default: the current directory's)",
});

/** `--all` of the lists. */
export const ALL_FLAG = flag.boolean({
  describe: "every repository's runs, with a REPO column (default: this repository's)",
});

/** The RUN argument of the commands that pick runs. */
export const RUN_SELECTION: ArgDef = {
  name: "RUN",
  describe: "run id (or a unique part of it, or `last`, among this repository's runs)",
};
