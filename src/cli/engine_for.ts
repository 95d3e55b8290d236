/**
 * The engine of a command that picks runs: `-d DIR` names the repository whose runs `last`, a
 * part of an id and `-g` pick from (default: the working directory's).
 */
import { createEngine, type Engine } from "../engine/mod.ts";
import type { Sys } from "../sys/mod.ts";

/** The engine over `sys`, standing in the `-d` folder when one was given. */
export function engineFor(sys: Sys, flags: { readonly dir?: string }): Engine {
  return createEngine(sys, flags.dir === undefined ? {} : { dir: flags.dir });
}
