/**
 * Output helpers: `--json` written by one function, plain tables for people.
 */
import type { Sys } from "../sys/mod.ts";

/** Writes a JSON document (the `--json` contract) to stdout. */
export function printJson(sys: Sys, value: unknown): void {
  sys.out.stdout(JSON.stringify(value, null, 2) + "\n");
}

/** Writes one JSON line to stdout (streams). */
export function printJsonLine(sys: Sys, value: unknown): void {
  sys.out.stdout(JSON.stringify(value) + "\n");
}

/** Formats rows as a left-aligned table; the last column is not padded. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return "";
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, [...cell].length)));
  }
  return rows.map((row) =>
    row.map((
      cell,
      i,
    ) => (i === row.length - 1 ? cell : cell + " ".repeat(widths[i]! - [...cell].length))).join(
      "  ",
    )
      .trimEnd()
  ).join("\n") + "\n";
}

/** Writes warnings to stderr, one line each. */
export function warn(sys: Sys, warnings: readonly string[]): void {
  for (const w of warnings) sys.out.stderr(`pitroom: warning: ${w}\n`);
}
