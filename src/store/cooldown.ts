/**
 * Cooldowns: targets that were rate limited or out of quota, with the time they may be tried
 * again. One JSON file in the state dir, updated under a lock by concurrent supervisors.
 */
import { readJsonOrNull, writeJsonAtomic } from "../sys/atomic.ts";
import type { StatePaths } from "./paths.ts";
import { withLock } from "./locks.ts";

/** One cooling target. */
export interface Cooldown {
  /** `worker:model` (`worker:default` when no model was named). */
  target: string;
  until: number;
  reason: "rate_limited" | "quota";
  message: string;
  /** The run that hit it. */
  run: string;
  since: number;
}

async function read(paths: StatePaths): Promise<Record<string, Cooldown>> {
  let value: unknown;
  try {
    value = await readJsonOrNull(paths.cooldown);
  } catch (error) {
    if (error instanceof SyntaxError) return {};
    throw error;
  }
  if (typeof value !== "object" || value === null) return {};
  const out: Record<string, Cooldown> = {};
  for (const [k, v] of Object.entries((value as { targets?: unknown }).targets ?? {})) {
    const c = v as Partial<Cooldown>;
    if (typeof c.until === "number" && typeof c.target === "string") out[k] = c as Cooldown;
  }
  return out;
}

async function locked<T>(paths: StatePaths, fn: () => Promise<T>): Promise<T> {
  return await withLock(`${paths.cooldown}.lock`, fn);
}

/** The key of a target. */
export function cooldownKey(worker: string, model: string | undefined): string {
  return `${worker}:${model ?? "default"}`;
}

/** Cooldowns still in force at `now`, soonest first. */
export async function activeCooldowns(paths: StatePaths, now: number): Promise<Cooldown[]> {
  return Object.values(await read(paths)).filter((c) => c.until > now).sort((a, b) =>
    a.until - b.until
  );
}

/** Records (or extends) a cooldown. */
export async function putCooldown(paths: StatePaths, cooldown: Cooldown): Promise<void> {
  await locked(paths, async () => {
    const all = await read(paths);
    const prev = all[cooldown.target];
    all[cooldown.target] = prev && prev.until > cooldown.until ? prev : cooldown;
    for (const [k, c] of Object.entries(all)) if (c.until <= cooldown.since) delete all[k];
    await writeJsonAtomic(paths.cooldown, { schemaVersion: 1, targets: all });
  });
}

/** Forgets every cooldown; returns how many were in force. */
export async function clearCooldowns(paths: StatePaths, now: number): Promise<number> {
  return await locked(paths, async () => {
    const n = (await activeCooldowns(paths, now)).length;
    await writeJsonAtomic(paths.cooldown, { schemaVersion: 1, targets: {} });
    return n;
  });
}
