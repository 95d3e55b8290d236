/**
 * Splits a write run's changed files into the worker's and the rest (engine/attribute.ts), from
 * the run's events file; for a lost run also by when each file last changed, so nothing changed
 * after the worker's last recorded activity is counted as the worker's.
 */
import type { PitroomEvent } from "../events/mod.ts";
import { statePaths } from "../store/paths.ts";
import type { ChangedFile, RunRecord } from "../store/record.ts";
import { readEventsFile } from "../store/events_file.ts";
import type { Sys } from "../sys/mod.ts";
import { lstatOrNull } from "../sys/fs.ts";
import { join } from "../sys/path.ts";
import { attribute, type ChangedPath } from "./attribute.ts";

/** The worker's files and the others (absent when there are none). */
export interface SplitChanges {
  files: ChangedFile[];
  others?: ChangedFile[];
}

/** Options of `splitChanges`. */
export interface SplitOptions {
  /** The repository root the paths are relative to. */
  root: string;
  /**
   * Also leave out files last changed after the worker's last recorded event (a lost run's
   * capture, taken any time after its supervisor died). @default false
   */
  byTime?: boolean;
}

/** `path` relative to `root` ("" for the root itself); null when outside it. */
function inside(root: string, path: string): string | null {
  if (path === root) return "";
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : null;
}

async function realOr(path: string): Promise<string> {
  try {
    return await Deno.realPath(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return path;
    throw error;
  }
}

/** The last time the worker or its supervisor recorded anything (a lost run's later mark aside). */
export function lastActivity(events: readonly PitroomEvent[], since: number): number {
  let last = since;
  for (const ev of events) if (ev.type !== "run.lost" && ev.time > last) last = ev.time;
  return last;
}

/** When the file at `abs` last changed (the later of mtime and ctime), null when gone. */
async function changedAt(abs: string): Promise<number | null> {
  const info = await lstatOrNull(abs);
  if (info === null) return null;
  const times = [info.mtime, info.ctime].filter((t): t is Date => t instanceof Date);
  return times.length === 0 ? null : Math.max(...times.map((t) => t.getTime()));
}

/** Splits a write run's changed `files` by whether a tool call of the worker could have made them. */
export async function splitChanges(
  sys: Pick<Sys, "stateDir">,
  record: RunRecord,
  files: readonly ChangedFile[],
  options: SplitOptions,
): Promise<SplitChanges> {
  if (files.length === 0) return { files: [] };
  const events = await readEventsFile(statePaths(sys.stateDir).run(record.id).events);
  const realRoot = await realOr(options.root);
  const cwd = inside(realRoot, await realOr(record.cwd)) ?? inside(options.root, record.cwd) ?? "";
  const changed: ChangedPath[] = [];
  for (const file of files) {
    const at = options.byTime ? await changedAt(join(options.root, file.path)) : null;
    changed.push({ path: file.path, changedAt: at });
  }
  const since = record.startedAt ?? record.createdAt;
  const split = attribute(changed, {
    events,
    roots: [...new Set([options.root, realRoot])],
    cwd,
    ...(options.byTime ? { until: lastActivity(events, since) } : {}),
  });
  const worker = new Set(split.worker);
  const others = files.filter((file) => !worker.has(file.path));
  return {
    files: files.filter((file) => worker.has(file.path)),
    ...(others.length > 0 ? { others } : {}),
  };
}
