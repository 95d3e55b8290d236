/**
 * Output helpers: `--json` written by one function, plain tables for people.
 */
import { Exit } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import { safe } from "./safe.ts";

/** A JSON document as `--json` prints it. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

/** Writes a JSON document (the `--json` contract) to stdout. */
export function printJson(sys: Sys, value: unknown): void {
  sys.out.stdout(jsonText(value));
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

/**
 * Names damaged records on stderr, one line each (`pitroom: Run "…": FILE is damaged (…); still
 * works: …`), as an error would be. A command that could not do what was asked because of one
 * ends with exit 7 (`failed`); one that did it from what is whole keeps its exit code.
 */
export function sayDamaged(
  sys: Sys,
  damaged: readonly { message: string }[],
  exit: { failed: boolean; otherwise: number },
): number {
  for (const d of damaged) sys.out.stderr(`pitroom: ${safe(d.message)}\n`);
  return damaged.length > 0 && exit.failed ? Exit.damagedRecord : exit.otherwise;
}
