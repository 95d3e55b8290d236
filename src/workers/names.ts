/**
 * The names of the worker backends and of the run modes: plain data with no effects, so the run
 * record's schema (store/record.ts) and the dashboard page's types can name them.
 */

/** Backend names. */
export const WORKER_NAMES = [
  "opencode",
  "codex",
  "claude",
  "gemini",
  "qwen",
  "kilo",
  "copilot",
  "crush",
] as const;
/** A backend name. */
export type WorkerName = typeof WORKER_NAMES[number];

/** Workers with a free way to run: OpenCode's free models, Gemini CLI's free tier, Kilo Gateway's free models. */
export const FREE_WORKERS: readonly WorkerName[] = ["opencode", "gemini", "kilo"];

/** `names` with the free workers first, each group in its given order (pure). */
export function freeFirst<T extends string>(names: readonly T[]): T[] {
  const free = (n: string) => (FREE_WORKERS as readonly string[]).includes(n);
  return [...names.filter(free), ...names.filter((n) => !free(n))];
}

/** Run modes. */
export const MODE_NAMES = ["read", "write", "isolate"] as const;
/** A run mode. */
export type Mode = typeof MODE_NAMES[number];
