/**
 * Which changes to one file are the worker's, from the file's versions during the run (the watch
 * of engine/tree/tree_watch.ts) and the worker's calls: pure.
 *
 * Each change from one version to the next happened within a span of time (from the first event
 * that announced it to the file's change time). A call that could have changed the file (an edit
 * or write naming it, or any command) could write it within a window: from the call's start (a
 * moment it certainly started after: the parser's `started`) to when it was reported done (a
 * command: to the worker's last activity). A change within a window is the worker's; a change
 * outside every window is not; a change across a window's edge cannot be told (`unsure`). A file
 * whose changes are all the worker's is the worker's, all not: the user's; both: shared, and the
 * worker's consecutive changes make its segments, each from the version just before the worker's
 * edit to the version it left: what revert takes back out (three-way) and the patch shows.
 */
import type { VersionLine } from "./tree_watch.ts";

/** A file as a tree records it (git mode and blob). */
export interface FileEntry {
  mode: string;
  blob: string;
}

/** One version of a file, and the span of time the change to it happened in. */
export interface Version {
  entry: FileEntry | null;
  lo: number;
  hi: number;
}

/** What a versions file holds. */
export interface Histories {
  /** Each path's versions, in order. */
  versions: Map<string, Version[]>;
  /** Folders watched (their files only). */
  folders: Set<string>;
  /** Folders watched with their sub-folders. */
  deep: string[];
  /** When the whole watch failed, if it did. */
  brokenAt?: number;
  /** Paths (and `folder/` prefixes) whose history is incomplete. */
  incomplete: Set<string>;
}

/** Reads a versions file's text (a line torn at its end is skipped). */
export function parseVersions(text: string): Histories {
  const out: Histories = {
    versions: new Map(),
    folders: new Set(),
    deep: [],
    incomplete: new Set(),
  };
  for (const raw of text.split("\n")) {
    if (raw.trim() === "") continue;
    let line: VersionLine;
    try {
      line = JSON.parse(raw) as VersionLine;
    } catch {
      continue;
    }
    if (line.t === "dirs") {
      for (const dir of line.d) line.r ? out.deep.push(dir) : out.folders.add(dir);
    } else if (line.t === "v") {
      const list = out.versions.get(line.p) ?? [];
      const entry = line.b === null || line.m === null ? null : { mode: line.m, blob: line.b };
      list.push({ entry, lo: line.lo, hi: line.hi });
      out.versions.set(line.p, list);
    } else if (line.t === "lost") {
      if (line.p === undefined) out.brokenAt ??= line.at;
      else out.incomplete.add(line.p);
    }
  }
  return out;
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut < 0 ? "" : path.slice(0, cut);
}

/** The versions of `path`, or null when its history is not complete. */
export function historyOf(histories: Histories, path: string): Version[] | null {
  if (histories.brokenAt !== undefined) return null;
  if (histories.incomplete.has(path)) return null;
  for (const entry of histories.incomplete) {
    if (entry.endsWith("/") && path.startsWith(entry)) return null;
  }
  const parent = parentOf(path);
  const covered = histories.folders.has(parent) ||
    histories.deep.some((dir) => parent === dir || parent.startsWith(`${dir}/`));
  return covered ? histories.versions.get(path) ?? [] : null;
}

/** When a worker's call could have written a file (ms). */
export interface Window {
  from: number;
  to: number;
}

/** When a change happened: at the earliest `lo`, at the latest `hi` (ms). */
export interface Span {
  lo: number;
  hi: number;
}

/** Whose a change within its span is, given the worker's windows on the file. */
export function ownerOf({ lo, hi }: Span, windows: readonly Window[]): Owner {
  if (windows.some((w) => lo >= w.from && hi <= w.to)) return "worker";
  if (windows.every((w) => hi < w.from || lo > w.to)) return "user";
  return "unsure";
}

/** Whose a change is. */
export type Owner = "worker" | "user" | "unsure";

/**
 * Whose the change is that the watch did not see (the file's last change, after its last version
 * seen; a lost run's watch died with its supervisor): judged by when it ended, as a file without
 * versions is. When that is outside every window, it is not the worker's (a change of the
 * worker's hidden under it stays in the file, it is never reverted as the user's); inside one, it
 * is the worker's only if all of it may be.
 */
export function tailOwnerOf(span: Span, windows: readonly Window[]): Owner {
  if (!windows.some((w) => span.hi >= w.from && span.hi <= w.to)) return "user";
  return ownerOf(span, windows) === "worker" ? "worker" : "unsure";
}

/** The worker's changes to a file, from the version just before each to the one it left. */
export interface Segment {
  before: FileEntry | null;
  after: FileEntry | null;
}

/** How a file's changes split. */
export interface FileSplit {
  kind: "worker" | "user" | "shared" | "unsure";
  /** The worker's segments (for `unsure`, counting the changes that cannot be told as its). */
  segments: Segment[];
}

const same = (a: FileEntry | null, b: FileEntry | null) =>
  a === null ? b === null : b !== null && a.blob === b.blob && a.mode === b.mode;

/**
 * Splits one file's changes from `before` to `after`: its `versions` seen in order, then,
 * when the last of them is not `after`, a change within `tail` the watch did not see
 * (`tailOwnerOf`).
 */
export function splitFile(
  change: { before: FileEntry | null; after: FileEntry | null },
  seen: { versions: readonly Version[]; windows: readonly Window[]; tail: Span },
): FileSplit {
  const { before, after } = change;
  const { versions, windows, tail } = seen;
  const changes: { from: FileEntry | null; to: FileEntry | null; owner: Owner }[] = [];
  let last = before;
  const push = (to: FileEntry | null, owner: Owner) => {
    if (same(to, last)) return;
    changes.push({ from: last, to, owner });
    last = to;
  };
  for (const v of versions) push(v.entry, ownerOf(v, windows));
  if (!same(last, after)) push(after, tailOwnerOf(tail, windows));
  const owners = new Set(changes.map((c) => c.owner));
  const segments: Segment[] = [];
  for (const change of changes) {
    if (change.owner === "user") continue;
    const open = segments.at(-1);
    const previous = changes[changes.indexOf(change) - 1];
    if (open !== undefined && previous !== undefined && previous.owner !== "user") {
      open.after = change.to;
    } else segments.push({ before: change.from, after: change.to });
  }
  const kind = owners.has("unsure")
    ? "unsure"
    : owners.has("worker") && owners.has("user")
    ? "shared"
    : owners.has("user")
    ? "user"
    : "worker";
  return { kind, segments };
}
