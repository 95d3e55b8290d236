/**
 * workers/: one folder per worker CLI (opencode, codex, claude, gemini, qwen, kilo, copilot,
 * crush), each with the same files
 * and exports: `mod.ts` (the `Backend`: detect, launch, parse, classify, models), `argv.ts` (the
 * launch description and the read/write/isolate permission profiles), `parse.ts` (the pure
 * parser from the CLI's JSON lines to the event union), `classify.ts` (the pure failure
 * classifier) and `models.ts`. A backend never spawns anything itself: the engine's process
 * shell runs what `launch` describes. `registry.ts` maps names to backends.
 */
export { BACKENDS } from "./registry.ts";
export type { Backend, Launch, Mode, Outcome, RunSpec, WorkerName } from "./types.ts";
