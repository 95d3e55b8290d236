/**
 * argv -> flag values and arguments for one declared command (no effects): the values typed
 * from the command's flag declarations (command.ts).
 */
import { UsageError } from "../sys/errors.ts";
import type {
  CommandDef,
  EnumFlag,
  FlagDef,
  FlagSpecs,
  FlagValue,
  FlagValuesOf,
  NumberFlag,
} from "./command.ts";
import { MAX_DURATION, parseDuration } from "../sys/duration.ts";

/** Suggests a command or flag name close to `word` (the nearest, if it is near enough). */
export function suggest(word: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const d = distance(word, c);
    if (d < bestScore) {
      best = c;
      bestScore = d;
    }
  }
  return bestScore <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/** Levenshtein distance, for "did you mean". */
export function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

type RawValue = string | boolean | string[];

/** The help flag every command takes. */
const HELP: FlagDef = { name: "help", short: "h", type: "boolean", describe: "" };

/** Who is parsed: the command's name and arguments. */
type Command = Pick<CommandDef, "name" | "args">;

/**
 * Splits argv into flag values and positionals, strictly: `--name`, `--name=value`,
 * `--name value`, `-x`, `-x value`, `-xyz` (booleans), and `--` ending the flags. Unknown
 * flags and missing values are usage errors.
 */
function splitArgv(
  def: Command,
  declared: readonly FlagDef[],
  argv: readonly string[],
): { values: Map<string, RawValue>; positionals: string[] } {
  const flags = [...declared, HELP];
  const byName = new Map(flags.map((f) => [f.name, f]));
  const byShort = new Map(flags.flatMap((f) => (f.short ? [[f.short, f] as const] : [])));
  const values = new Map<string, RawValue>();
  const positionals: string[] = [];
  const help = `see \`pitroom ${def.name} --help\``;
  const set = (f: FlagDef, value: string | boolean) => {
    if (f.type === "repeated") {
      const list = values.get(f.name);
      values.set(f.name, [...(Array.isArray(list) ? list : []), String(value)]);
    } else {
      values.set(f.name, value);
    }
  };
  const unknown = (typed: string) => {
    const guess = suggest(typed.replace(/^-+/, ""), declared.map((f) => f.name));
    return new UsageError(`Unknown flag "${typed}" for \`pitroom ${def.name}\``, {
      hint: guess ? `did you mean --${guess}?` : help,
    });
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      const f = byName.get(name);
      if (f === undefined) throw unknown(eq < 0 ? arg : arg.slice(0, eq));
      if (f.type === "boolean") {
        if (eq >= 0) throw new UsageError(`Flag "--${name}" takes no value`, { hint: help });
        set(f, true);
      } else if (eq >= 0) {
        set(f, arg.slice(eq + 1));
      } else {
        const value = argv[++i];
        if (value === undefined) {
          throw new UsageError(`Flag "--${name}" needs a value`, { hint: help });
        }
        set(f, value);
      }
    } else if (arg.startsWith("-") && arg.length > 1) {
      for (let k = 1; k < arg.length; k++) {
        const f = byShort.get(arg[k]!);
        if (f === undefined) throw unknown(`-${arg[k]}`);
        if (f.type === "boolean") {
          set(f, true);
          continue;
        }
        const rest = arg.slice(k + 1);
        const value = rest !== "" ? rest : argv[++i];
        if (value === undefined) {
          throw new UsageError(`Flag "--${f.name}" needs a value`, { hint: help });
        }
        set(f, value);
        break;
      }
    } else {
      positionals.push(arg);
    }
  }
  return { values, positionals };
}

/** Parses `argv` against a command's flags; the values are typed from their declaration. */
export function parseInput<F extends FlagSpecs>(
  def: Command,
  specs: F,
  argv: readonly string[],
): { flags: FlagValuesOf<F>; args: string[]; help: boolean } {
  const declared = Object.entries(specs).map(([name, spec]): FlagDef => ({ name, ...spec }));
  const parsed = splitArgv(def, declared, argv);
  const flags: Record<string, FlagValue> = {};
  for (const f of declared) {
    const value = valueOf(f, parsed.values.get(f.name));
    if (value !== undefined) flags[f.name] = value;
  }
  const args = parsed.positionals;
  const help = parsed.values.get("help") === true;
  if (!help) {
    checkArgs(def, args);
    checkRequired(def, declared, flags);
  }
  // Each declared flag now has a value of its declared type (valueOf), or none: the shape
  // FlagValuesOf<F> describes, which the loop cannot show the compiler.
  return { flags: flags as FlagValuesOf<F>, args, help };
}

/** A flag's value from its raw text: checked, converted, or its default. */
function valueOf(f: FlagDef, raw: RawValue | undefined): FlagValue | undefined {
  if (raw === undefined) {
    if (f.type === "duration" && f.default !== undefined) {
      return parseDuration(f.default, `--${f.name}`);
    }
    return f.type === "boolean" || f.type === "repeated" ? undefined : f.default;
  }
  for (const value of Array.isArray(raw) ? raw : [raw]) {
    if (value === "") throw new UsageError(`Flag "--${f.name}" needs a value, got ""`);
  }
  if (f.type === "duration") return durationOf(f, String(raw));
  if (f.type === "number") return numberOf(f, String(raw));
  if (f.type === "enum") return oneOf(f, String(raw));
  return raw;
}

function durationOf(f: FlagDef, raw: string): number {
  const ms = parseDuration(raw, `--${f.name}`);
  if (ms > MAX_DURATION.ms) {
    throw new UsageError(`Flag "--${f.name}" takes at most ${MAX_DURATION.text}, got "${raw}"`);
  }
  return ms;
}

function numberOf(f: NumberFlag & { name: string }, raw: string): number {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n)) {
    throw new UsageError(`Flag "--${f.name}" needs a number, got "${raw}"`);
  }
  if (f.integer && !Number.isInteger(n)) {
    throw new UsageError(`Flag "--${f.name}" needs a whole number, got "${raw}"`);
  }
  if (f.min !== undefined && n < f.min) {
    throw new UsageError(`Flag "--${f.name}" needs a number of at least ${f.min}, got "${raw}"`);
  }
  return n;
}

function oneOf(f: EnumFlag & { name: string }, raw: string): string {
  if (!f.values.includes(raw)) {
    throw new UsageError(`Flag "--${f.name}" takes one of ${f.values.join(", ")}, got "${raw}"`);
  }
  return raw;
}

function checkArgs(def: Command, args: string[]): void {
  const required = def.args.filter((a) => a.required).length;
  const variadic = def.args.some((a) => a.variadic);
  if (args.length < required) {
    const missing = def.args[args.length]!;
    throw new UsageError(`\`pitroom ${def.name}\` needs ${missing.name}`, {
      hint: `see \`pitroom ${def.name} --help\``,
    });
  }
  if (!variadic && args.length > def.args.length) {
    throw new UsageError(
      `Too many arguments for \`pitroom ${def.name}\`: "${args[def.args.length]}"`,
      {
        hint: `quote a task with spaces, or see \`pitroom ${def.name} --help\``,
      },
    );
  }
}

function checkRequired(
  def: Command,
  declared: readonly FlagDef[],
  flags: Record<string, FlagValue>,
): void {
  for (const f of declared) {
    if (f.type !== "boolean" && f.required && flags[f.name] === undefined) {
      throw new UsageError(`\`pitroom ${def.name}\` needs --${f.name} ${f.value}`, {
        hint: `see \`pitroom ${def.name} --help\``,
      });
    }
  }
}
