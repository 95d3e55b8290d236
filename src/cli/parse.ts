/**
 * argv -> flag values and arguments for one declared command (no effects).
 */
import { UsageError } from "../sys/errors.ts";
import { type CommandDef, type FlagDef, type FlagValues, MAX_DURATION } from "./command.ts";
import { parseDuration } from "../engine/mod.ts";

/** The parsed form of a command line. */
export interface Parsed {
  flags: FlagValues;
  args: string[];
  help: boolean;
}

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

/**
 * Splits argv into flag values and positionals, strictly: `--name`, `--name=value`,
 * `--name value`, `-x`, `-x value`, `-xyz` (booleans), and `--` ending the flags. Unknown
 * flags and missing values are usage errors.
 */
function splitArgv(
  def: CommandDef,
  argv: string[],
): { values: Record<string, RawValue>; positionals: string[] } {
  const flags = [...def.flags, {
    name: "help",
    short: "h",
    type: "boolean" as const,
    describe: "",
  }];
  const byName = new Map(flags.map((f) => [f.name, f]));
  const byShort = new Map(flags.flatMap((f) => (f.short ? [[f.short, f] as const] : [])));
  const values: Record<string, RawValue> = {};
  const positionals: string[] = [];
  const help = `see \`pitroom ${def.name} --help\``;
  const set = (f: typeof flags[number], value: string | boolean) => {
    if (f.type === "strings") {
      const list = values[f.name];
      values[f.name] = [...(Array.isArray(list) ? list : []), String(value)];
    } else {
      values[f.name] = value;
    }
  };
  const unknown = (typed: string) => {
    const guess = suggest(typed.replace(/^-+/, ""), def.flags.map((f) => f.name));
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

/** Parses `argv` against `def`. */
export function parseCommand(def: CommandDef, argv: string[]): Parsed {
  const parsed = splitArgv(def, argv);
  const values: Record<string, RawValue | undefined> = parsed.values;
  const flags: FlagValues = {};
  for (const f of def.flags) {
    const raw = values[f.name];
    if (raw === undefined) {
      if (f.default !== undefined) {
        flags[f.name] = f.type === "duration" && typeof f.default === "string"
          ? parseDuration(f.default, `--${f.name}`)
          : f.default;
      }
      continue;
    }
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      if (value === "") throw new UsageError(`Flag "--${f.name}" needs a value, got ""`);
    }
    if (f.type === "duration") flags[f.name] = durationOf(f, String(raw));
    else if (f.type === "number") flags[f.name] = numberOf(f, String(raw));
    else flags[f.name] = raw;
  }
  const args = parsed.positionals;
  const help = values.help === true;
  if (!help) checkArgs(def, args);
  return { flags, args, help };
}

function durationOf(f: FlagDef, raw: string): number {
  const ms = parseDuration(raw, `--${f.name}`);
  if (ms > MAX_DURATION.ms) {
    throw new UsageError(`Flag "--${f.name}" takes at most ${MAX_DURATION.text}, got "${raw}"`);
  }
  return ms;
}

function numberOf(f: FlagDef, raw: string): number {
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

function checkArgs(def: CommandDef, args: string[]): void {
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
