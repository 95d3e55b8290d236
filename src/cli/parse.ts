/**
 * argv -> flag values and arguments for one declared command (no effects).
 */
import { parseArgs } from "node:util";
import { UsageError } from "../sys/errors.ts";
import type { CommandDef, FlagValues } from "./command.ts";
import { parseDuration } from "./duration.ts";

/** The parsed form of a command line. */
export interface Parsed {
  flags: FlagValues;
  args: string[];
  help: boolean;
}

function closest(word: string, candidates: string[]): string | undefined {
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

/** Suggests a command or flag name close to `word`. */
export function suggest(word: string, candidates: string[]): string | undefined {
  return closest(word, candidates);
}

/** Parses `argv` against `def`. */
export function parseCommand(def: CommandDef, argv: string[]): Parsed {
  const options: Record<
    string,
    { type: "boolean" | "string"; short?: string; multiple?: boolean }
  > = {
    help: { type: "boolean", short: "h" },
  };
  for (const f of def.flags) {
    options[f.name] = {
      type: f.type === "boolean" ? "boolean" : "string",
      ...(f.short ? { short: f.short } : {}),
      ...(f.type === "strings" ? { multiple: true } : {}),
    };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const unknown = /Unknown option '(-{1,2})([^']+)'/.exec(message);
    if (unknown) {
      const guess = suggest(unknown[2]!, def.flags.map((f) => f.name));
      throw new UsageError(
        `Unknown flag "${unknown[1]}${unknown[2]}" for \`pitroom ${def.name}\``,
        {
          hint: guess ? `did you mean --${guess}?` : `see \`pitroom ${def.name} --help\``,
        },
      );
    }
    const missing = /Option '(?:-\w, )?--([\w-]+) <value>' argument missing/.exec(message);
    if (missing) {
      throw new UsageError(`Flag "--${missing[1]}" needs a value`, {
        hint: `see \`pitroom ${def.name} --help\``,
      });
    }
    throw new UsageError(message.split("\n")[0] ?? message, {
      hint: `see \`pitroom ${def.name} --help\``,
    });
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
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
    if (f.type === "duration") flags[f.name] = parseDuration(String(raw), `--${f.name}`);
    else if (f.type === "number") {
      const n = Number(raw);
      if (!Number.isFinite(n)) {
        throw new UsageError(`Flag "--${f.name}" needs a number, got "${raw}"`);
      }
      flags[f.name] = n;
    } else flags[f.name] = raw;
  }
  const args = parsed.positionals;
  const help = values.help === true;
  if (!help) checkArgs(def, args);
  return { flags, args, help };
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
