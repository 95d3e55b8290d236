/**
 * The CLI: argv -> command -> exit code.
 */
import type { Sys } from "../sys/mod.ts";

/** Runs the CLI and returns the exit code. */
export function main(_args: string[], _sys: Sys): Promise<number> {
  return Promise.resolve(0);
}
