/**
 * Splits a write or read run's changed files into the worker's and the rest
 * (engine/attribute.ts), from the run's events file and when each file last changed: nothing
 * changed after the last call that could have made it (after the worker's last recorded
 * activity, for a command) counts as the worker's.
 */
import type { PitroomEvent } from "../../events/mod.ts";
import { statePaths } from "../../store/paths.ts";
import type { ChangedFile, RunRecord } from "../../store/record.ts";
import { readEventsFile } from "../../store/events_file.ts";
import type { Sys } from "../../sys/mod.ts";
import { lstatOrNull } from "../../sys/fs.ts";
import { join } from "../../sys/path.ts";
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
}

/** How far the clock of the events' times may be from the file system's for times to be used. */
const CLOCK_SLACK_MS = 2_000;

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

/**
 * When a file with these times last changed, for attribution (ms since the epoch). Deno gives
 * the ctime in whole seconds only (the mtime to the ms), and no program can set the ctime.
 *
 * - The mtime lies in the ctime's second: the last change was a write at the mtime.
 * - Else the mtime was written before the status last changed: a file written and then renamed
 *   into place (how Claude Code and many editors save), or an mtime set by hand (`cp -p`, an
 *   archive, `touch -d`). The status changed within the ctime's second, and the start of that
 *   second is taken: a write renamed into place a moment before a tool call was reported, across
 *   a second's boundary, is that call's (the end of the second, taken before, made such an edit
 *   the user's: the worker's edit then went missing from its report and its patch). What this
 *   gives up: a hand-set mtime within the same second after a worker's call on the same file
 *   counts as the worker's.
 */
export function changeTime(
  mtimeMs: number | undefined,
  ctimeMs: number | undefined,
): number | null {
  if (ctimeMs === undefined) return mtimeMs ?? null;
  const second = Math.floor(ctimeMs / 1000) * 1000;
  return mtimeMs !== undefined && mtimeMs >= second && mtimeMs < second + 1000 ? mtimeMs : second;
}

/** When the file at `abs` last changed (`changeTime`), null when it is gone. */
async function changedAt(abs: string): Promise<number | null> {
  const info = await lstatOrNull(abs);
  if (info === null) return null;
  return changeTime(info.mtime?.getTime(), info.ctime?.getTime());
}

/**
 * The worker's last recorded activity, when the events' clock agrees with the file system's
 * (the events file was last written when its last event says); undefined otherwise (a fake
 * clock), and then the files' times are not used.
 */
async function activityBound(
  eventsFile: string,
  events: readonly PitroomEvent[],
  since: number,
): Promise<number | undefined> {
  // A finished or lost run's file is compressed (`.gz`, written right after its last event).
  const file = (await lstatOrNull(eventsFile)) ?? (await lstatOrNull(`${eventsFile}.gz`));
  const written = file?.mtime?.getTime();
  const last = events.reduce((max, ev) => Math.max(max, ev.time), -Infinity);
  if (written === undefined || Math.abs(written - last) > CLOCK_SLACK_MS) return undefined;
  return lastActivity(events, since);
}

/** Splits a run's changed `files` by whether a tool call of the worker could have made them. */
export async function splitChanges(
  sys: Pick<Sys, "stateDir">,
  record: RunRecord,
  files: readonly ChangedFile[],
  options: SplitOptions,
): Promise<SplitChanges> {
  if (files.length === 0) return { files: [] };
  const eventsFile = statePaths(sys.stateDir).run(record.id).events;
  const events = await readEventsFile(eventsFile);
  const realRoot = await realOr(options.root);
  const cwd = inside(realRoot, await realOr(record.cwd)) ?? inside(options.root, record.cwd) ?? "";
  const until = await activityBound(eventsFile, events, record.startedAt ?? record.createdAt);
  const changed: ChangedPath[] = [];
  for (const file of files) {
    const at = until === undefined ? null : await changedAt(join(options.root, file.path));
    changed.push({ path: file.path, changedAt: at });
  }
  const split = attribute(changed, {
    events,
    // A read run's changes are violations: a line its parser did not understand may have been
    // a call that wrote, so it makes every change the worker's.
    unknownChanges: record.mode === "read",
    roots: [...new Set([options.root, realRoot])],
    cwd,
    ...(until === undefined ? {} : { until }),
  });
  const worker = new Set(split.worker);
  const others = files.filter((file) => !worker.has(file.path));
  return {
    files: files.filter((file) => worker.has(file.path)),
    ...(others.length > 0 ? { others } : {}),
  };
}
