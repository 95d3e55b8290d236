/**
 * Splits a write or read run's changed files into the worker's and the rest
 * (engine/tree/attribute.ts), from the run's events file and when each file last changed: nothing
 * changed after the last call that could have made it (after the worker's last recorded
 * activity, for a command) counts as the worker's. Where the run's watch kept a file's versions
 * (engine/tree/tree_watch.ts), each change to it is judged on its own (engine/tree/file_history.ts): a file
 * the user changed too is shared, and only the worker's segments of it are its own.
 */
import type { HeldSys } from "../../store/state.ts";
import type { PitroomEvent } from "../../events/mod.ts";
import type { ChangedFile, FileEntry, RunRecord, SharedFile } from "../../store/record.ts";
import { readEventsFile } from "../../store/events_file.ts";
import { lstatOrNull } from "../../sys/fs.ts";
import { join } from "../../sys/path.ts";
import { attribute, type ChangedPath, changingCalls, windowsFor } from "./attribute.ts";
import { historyOf, parseVersions, splitFile } from "./file_history.ts";
import { changeTime } from "./tree_watch.ts";
import { MODES } from "../../workers/modes.ts";

/** The worker's files and the others (absent when there are none). */
export interface SplitChanges {
  files: ChangedFile[];
  others?: ChangedFile[];
  /** Files both changed: in `files` and `others` alike, marked `shared`. */
  shared?: SharedFile[];
}

/** Options of `splitChanges`. */
export interface SplitOptions {
  /** The repository root the paths are relative to. */
  root: string;
  /** Each changed path's entry before and after (needed to split a shared file). */
  entries?: ReadonlyMap<string, { from: FileEntry | null; to: FileEntry | null }>;
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

/** The run's kept file versions, or null when it kept none. */
async function readHistories(file: string) {
  try {
    return parseVersions(await Deno.readTextFile(file));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** Splits a run's changed `files` by whether a tool call of the worker could have made them. */
export async function splitChanges(
  sys: Pick<HeldSys, "state">,
  record: RunRecord,
  files: readonly ChangedFile[],
  options: SplitOptions,
): Promise<SplitChanges> {
  if (files.length === 0) return { files: [] };
  const runPaths = sys.state.paths.run(record.id);
  const events = await readEventsFile(runPaths.events);
  const realRoot = await realOr(options.root);
  const cwd = inside(realRoot, await realOr(record.cwd)) ?? inside(options.root, record.cwd) ?? "";
  const until = await activityBound(runPaths.events, events, record.startedAt ?? record.createdAt);
  const times = new Map<string, number | null>();
  for (const file of files) {
    times.set(
      file.path,
      until === undefined ? null : await changedAt(join(options.root, file.path)),
    );
  }
  const roots = [...new Set([options.root, realRoot])];
  // A read run's changes are violations: a line its parser did not understand may have been a
  // call that wrote, so it makes every change the worker's.
  const unknownChanges = !MODES[record.mode].keepsChanges;
  const split = attribute(
    files.map((file): ChangedPath => ({
      path: file.path,
      changedAt: times.get(file.path) ?? null,
    })),
    { events, unknownChanges, roots, cwd, ...(until === undefined ? {} : { until }) },
  );
  const worker = new Set(split.worker);
  const histories = until === undefined || options.entries === undefined
    ? null
    : await readHistories(runPaths.versions);
  const calls = changingCalls(events, { unknownChanges });
  const shared: SharedFile[] = [];
  for (const file of histories === null ? [] : files) {
    const history = historyOf(histories!, file.path);
    const entry = options.entries!.get(file.path);
    // No version seen of a file that changed (a name the watch cannot be given, a change through
    // a hard link elsewhere): attributed by the calls alone, as without a watch.
    if (history === null || history.length === 0 || entry === undefined) continue;
    const windows = windowsFor(file.path, calls, { roots, cwd, until: until! });
    const last = history.at(-1);
    const at = times.get(file.path) ?? until!;
    const tail = {
      lo: last === undefined ? record.startedAt ?? record.createdAt : last.hi,
      hi: at,
    };
    const result = splitFile(
      { before: entry.from, after: entry.to },
      { versions: history, windows, tail },
    );
    if (result.kind === "worker") worker.add(file.path);
    else if (result.kind === "user") worker.delete(file.path);
    else {
      worker.add(file.path);
      shared.push({
        path: file.path,
        segments: result.segments,
        ...(result.kind === "unsure" ? { unsure: true as const } : {}),
      });
    }
  }
  const sharedKind = new Map(shared.map((f) => [f.path, f.unsure ? "unsure" : "split"] as const));
  const mark = (file: ChangedFile): ChangedFile => {
    const kind = sharedKind.get(file.path);
    return kind === undefined ? file : { ...file, shared: kind };
  };
  const mine = files.filter((file) => worker.has(file.path)).map(mark);
  const others = files.filter((file) => !worker.has(file.path) || sharedKind.has(file.path))
    .map(mark);
  return {
    files: mine,
    ...(others.length > 0 ? { others } : {}),
    ...(shared.length > 0 ? { shared } : {}),
  };
}
