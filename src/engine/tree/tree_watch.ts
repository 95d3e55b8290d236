/**
 * The watch of a write run's tree: from before the snapshot until the run is collected, every
 * change the kernel reports (inotify through `Deno.watchFs`) in a folder of the tree is read at
 * once and, when the file's bytes or mode differ from the last version seen, that version is kept
 * (its blob in Pitroom's object store) with the span of time its change happened in: from the
 * first event that announced it to the file's change time. The versions file (one JSON line each,
 * `versions.jsonl` in the run's private folder, written as they come so a lost run keeps them) is
 * how the run later tells the user's edits from the worker's inside one file
 * (engine/tree/file_history.ts): the version just before the worker's edit is the one to merge against.
 *
 * Folders are watched one by one (not recursively: an ignored `node_modules` is never walked):
 * those of HEAD's tree before the snapshot, the untracked ones the snapshot found right after it,
 * and a folder made during the run as soon as it appears (its files found then are read too), up
 * to a few. Ignored paths and `.git` are left out. What cannot be watched is written down (a
 * folder too many, a file over the size cap, the kernel's queue overflowing, the watch limit),
 * and files there are attributed as before: by the worker's calls and the file's last change.
 */
import type { Clock } from "../../sys/mod.ts";
import { dirname, join } from "../../sys/path.ts";
import { statOrNullSync } from "../../sys/fs.ts";
import { isUnderIgnored } from "../../vcs/snapshot.ts";
import { LooseWriter, type ObjectCodec, objectCodec } from "../../vcs/tree_write.ts";

/** Files larger than this are not kept (their history is marked incomplete). */
const FILE_MAX = 64 * 1024 * 1024;
/** Bytes read and kept per run at most; past it the watch records nothing more. */
const TOTAL_MAX = 512 * 1024 * 1024;
/** Folders made during the run that get a watch of their own, at most. */
const NEW_FOLDERS_MAX = 8;
/** How long a quiet moment is when the watch ends (ms, real time), and how many are waited for. */
const SETTLE_MS = 5;
const SETTLE_ROUNDS = 10;

/** One line of a versions file. */
export type VersionLine =
  /** Folders watched from `at` (`r`: with their sub-folders). */
  | { t: "dirs"; at: number; d: string[]; r?: boolean }
  /** A version of file `p`: blob (null: no file) and git mode, changed between `lo` and `hi`. */
  | { t: "v"; p: string; b: string | null; m: string | null; lo: number; hi: number }
  /** From `at`, the history of `p` (of every path, without `p`) is incomplete, and why. */
  | { t: "lost"; at: number; p?: string; why: string }
  /** The watch ended. */
  | { t: "end"; at: number };

/** What a watch needs. */
export interface WatchOptions {
  /** The work tree's root. */
  root: string;
  /** Pitroom's object store of the repository (where versions' blobs go). */
  objectsDir: string;
  /**
   * The versions file; without one (a watch started before its run's record, engine/run/ahead.ts)
   * the lines wait in memory until `attach` names it.
   */
  file?: string;
  clock: Clock;
  /** Folders to watch, relative to the root ("" is the root). */
  folders: readonly string[];
  /** Tells whether a new folder is ignored (a `git check-ignore`); ignored ones are not watched. */
  ignoredFolder?: (rel: string) => Promise<boolean>;
  /**
   * Stores the bytes of a large file as a blob and gives its id (`git hash-object -w`, in another
   * process: compressing megabytes here would hold up the process supervising other runs).
   */
  storeLarge?: (bytes: Uint8Array) => Promise<string>;
}

/** Files up to this size are hashed and compressed here; larger ones by `storeLarge`. */
const IN_PROCESS_MAX = 1024 * 1024;

/**
 * The latest moment the change to a version read at `readAt` can have happened: the file's
 * mtime when it lies within its ctime's second (a plain write), else (an mtime set by hand, a
 * future one, a file renamed into place) the end of the ctime's second, but no later than the
 * read.
 */
export function lastChange(info: Deno.FileInfo, readAt: number): number {
  const mtime = info.mtime?.getTime();
  const ctime = info.ctime?.getTime();
  const at = changeTime(mtime, ctime);
  if (at === null || ctime === undefined || at === mtime) return at ?? readAt;
  return Math.min(readAt, Math.floor(ctime / 1000) * 1000 + 999);
}

function missing(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory;
}

/** A running watch; `close()` reads what is pending and ends it. */
export class TreeWatch {
  readonly #options: WatchOptions;
  readonly #prefix: string;
  readonly #watchers: Deno.FsWatcher[] = [];
  readonly #loops: Promise<void>[] = [];
  readonly #watched = new Set<string>();
  /** Paths with unread changes, and when the first of them was announced. */
  readonly #dirty = new Map<string, number>();
  /** The last version seen of each path (blob and mode, or null for no file). */
  readonly #last = new Map<string, string>();
  #ignored: readonly string[] = [];
  #lines: string[] = [];
  #file: string | undefined;
  #flushing: Promise<void> = Promise.resolve();
  /** When the watch was in place (`start` resolved): a walk begun since sees its every change. */
  #inPlaceAt = 0;
  #reading: Promise<void> | null = null;
  /** When the last event was heard. */
  #heard = 0;
  /** Folders watched with their sub-folders. */
  readonly #deep: string[] = [];
  /**
   * The hash and the object writer, loaded when the first change is read: node's crypto and
   * zlib cost the process 35-40 ms of its one thread to load, and a run whose tree does not
   * change while it is watched (or not until its worker is under way) should not wait for them.
   */
  #objects: Promise<{ codec: ObjectCodec; writer: LooseWriter }> | null = null;
  #bytes = 0;
  #newFolders = 0;
  #stopped = false;
  #closed = false;

  private constructor(options: WatchOptions) {
    this.#options = options;
    this.#file = options.file;
    this.#prefix = options.root.endsWith("/") ? options.root : `${options.root}/`;
  }

  /** Starts watching `options.folders` (a failure to watch is written down, not thrown). */
  static async start(options: WatchOptions): Promise<TreeWatch> {
    const watch = new TreeWatch(options);
    if (options.file !== undefined) await watch.#create(options.file);
    watch.add(options.folders);
    watch.#inPlaceAt = options.clock.now();
    return watch;
  }

  /** When the watch was in place: a snapshot whose walk began since misses none of its changes. */
  get inPlaceAt(): number {
    return this.#inPlaceAt;
  }

  /** Names the versions file of a watch started without one; the lines so far go in first. */
  async attach(file: string): Promise<void> {
    if (this.#file !== undefined) return;
    await this.#create(file);
    this.#file = file;
    this.#flush();
  }

  async #create(file: string): Promise<void> {
    await Deno.mkdir(dirname(file), { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(file, "", { mode: 0o600 });
  }

  /** Leaves these paths out from now on (the snapshot's ignored files and folders). */
  ignore(ignored: readonly string[]): void {
    this.#ignored = ignored;
  }

  /** Watches more folders (relative; those watched already are skipped). */
  add(folders: readonly string[], recursive = false): void {
    const fresh = folders.filter((folder) => !this.#watched.has(folder));
    if (fresh.length === 0 || this.#stopped) return;
    const at = this.#options.clock.now();
    const absolute = (folder: string) =>
      folder === "" ? this.#options.root : join(this.#options.root, folder);
    let watcher: Deno.FsWatcher;
    try {
      try {
        watcher = Deno.watchFs(fresh.map(absolute), { recursive });
      } catch (error) {
        if (!missing(error)) throw error;
        // A folder of HEAD that is not on disk (deleted, or outside a sparse cone): the others.
        const there = fresh.filter((folder) => statOrNullSync(absolute(folder))?.isDirectory);
        if (there.length === fresh.length || there.length === 0) throw error;
        fresh.splice(0, fresh.length, ...there);
        watcher = Deno.watchFs(fresh.map(absolute), { recursive });
      }
    } catch (error) {
      // Past the kernel's watch limit (or a folder gone meanwhile): nothing there is watched.
      this.#note({ t: "lost", at, why: `the tree could not be watched: ${String(error)}` });
      this.#stopped = true;
      return;
    }
    fresh.forEach((folder) => this.#watched.add(folder));
    this.#watchers.push(watcher);
    this.#note({ t: "dirs", at, d: fresh, ...(recursive ? { r: true } : {}) });
    this.#loops.push(this.#follow(watcher));
  }

  async #follow(watcher: Deno.FsWatcher): Promise<void> {
    try {
      for await (const event of watcher) {
        const at = this.#options.clock.now();
        if (event.kind === "other" && event.flag === "rescan") {
          this.#note({ t: "lost", at, why: "the kernel's event queue overflowed" });
          this.#stopped = true;
          continue;
        }
        for (const abs of event.paths) this.#touched(abs, at);
      }
    } catch (error) {
      if (this.#closed) return;
      this.#note({
        t: "lost",
        at: this.#options.clock.now(),
        why: `the watch failed: ${String(error)}`,
      });
      this.#stopped = true;
    }
  }

  #relative(abs: string): string | null {
    if (!abs.startsWith(this.#prefix)) return null;
    const rel = abs.slice(this.#prefix.length);
    if (rel === "" || rel === ".git" || rel.startsWith(".git/")) return null;
    if (rel.split("/").includes(".git")) return null;
    return rel;
  }

  #touched(abs: string, at: number): void {
    if (this.#stopped) return;
    this.#heard = at;
    const rel = this.#relative(abs);
    if (rel === null || isUnderIgnored(rel, this.#ignored)) return;
    if (!this.#dirty.has(rel)) this.#dirty.set(rel, at);
    this.#kick();
  }

  /** Starts reading the changed paths unless a reading is under way. */
  #kick(): void {
    if (this.#reading !== null) return;
    this.#reading = this.#pump().finally(() => {
      this.#reading = null;
      if (this.#dirty.size > 0 && !this.#stopped) this.#kick();
    });
  }

  /** Reads the changed paths until none is left. */
  async #pump(): Promise<void> {
    while (this.#dirty.size > 0 && !this.#stopped) {
      const [rel, first] = this.#dirty.entries().next().value!;
      this.#dirty.delete(rel);
      try {
        await this.#read(rel, first);
      } catch (error) {
        // Unreadable (permissions, a special file): its history is incomplete, not the run's.
        this.#note({ t: "lost", at: first, p: rel, why: `unreadable: ${String(error)}` });
      }
    }
  }

  async #read(rel: string, first: number): Promise<void> {
    const abs = join(this.#options.root, rel);
    const readAt = this.#options.clock.now();
    let info: Deno.FileInfo | null;
    try {
      info = await Deno.lstat(abs);
    } catch (error) {
      if (!missing(error)) throw error;
      info = null;
    }
    if (info === null) {
      this.#version(rel, null, null, first, first);
      return;
    }
    if (info.isDirectory) {
      await this.#newFolder(rel, first);
      return;
    }
    if (!info.isFile && !info.isSymlink) return;
    if (info.size > FILE_MAX || this.#bytes + info.size > TOTAL_MAX) {
      this.#note({ t: "lost", at: first, p: rel, why: "too large to keep" });
      return;
    }
    let bytes: Uint8Array;
    try {
      bytes = info.isSymlink
        ? new TextEncoder().encode(await Deno.readLink(abs))
        : await Deno.readFile(abs);
    } catch (error) {
      if (missing(error)) return; // Gone meanwhile: its own event comes.
      throw error;
    }
    const again = await Deno.lstat(abs).catch(() => null);
    // Changed while read: the change that did it has its own event, read next.
    if (
      again === null || again.mtime?.getTime() !== info.mtime?.getTime() || again.size !== info.size
    ) {
      return;
    }
    this.#bytes += bytes.length;
    const mode = info.isSymlink ? "120000" : ((info.mode ?? 0) & 0o100) !== 0 ? "100755" : "100644";
    let blob: string;
    if (bytes.length > IN_PROCESS_MAX && this.#options.storeLarge !== undefined) {
      blob = await this.#options.storeLarge(bytes);
    } else {
      const header = new TextEncoder().encode(`blob ${bytes.length}\0`);
      const object = new Uint8Array(header.length + bytes.length);
      object.set(header);
      object.set(bytes, header.length);
      this.#objects ??= objectCodec().then((codec) => ({
        codec,
        writer: new LooseWriter({ objectsDir: this.#options.objectsDir }, codec),
      }));
      const { codec, writer } = await this.#objects;
      blob = codec.id(object);
      if (this.#last.get(rel) !== `${mode} ${blob}`) writer.write(blob, object);
    }
    const key = `${mode} ${blob}`;
    if (this.#last.get(rel) === key) return;
    const hi = lastChange(info, readAt);
    this.#version(rel, blob, mode, Math.min(first, hi), hi, key);
  }

  #version(
    rel: string,
    blob: string | null,
    mode: string | null,
    lo: number,
    hi: number,
    key = "",
  ) {
    if (this.#last.get(rel) === key) return;
    this.#last.set(rel, key);
    this.#note({ t: "v", p: rel, b: blob, m: mode, lo, hi });
  }

  /** A folder made during the run: watched (with what is in it) unless ignored or too many. */
  async #newFolder(rel: string, first: number): Promise<void> {
    if (this.#watched.has(rel) || this.#deep.some((deep) => rel.startsWith(`${deep}/`))) return;
    if (this.#options.ignoredFolder && await this.#options.ignoredFolder(rel)) return;
    if (this.#newFolders >= NEW_FOLDERS_MAX) {
      this.#note({ t: "lost", at: first, p: `${rel}/`, why: "too many new folders to watch" });
      return;
    }
    this.#newFolders += 1;
    this.add([rel], true);
    this.#deep.push(rel);
    // What was made in it before the watch began is read now, dated from the folder's making.
    const walk = async (dir: string): Promise<void> => {
      for await (const entry of Deno.readDir(join(this.#options.root, dir))) {
        const path = `${dir}/${entry.name}`;
        if (isUnderIgnored(path, this.#ignored)) continue;
        if (entry.isDirectory) await walk(path);
        else if (!this.#dirty.has(path)) this.#dirty.set(path, first);
      }
    };
    await walk(rel).catch((error) => {
      if (!missing(error)) throw error;
    });
  }

  #note(line: VersionLine): void {
    this.#lines.push(JSON.stringify(line));
    this.#flush();
  }

  #flush(): void {
    const file = this.#file;
    if (file === undefined || this.#lines.length === 0) return;
    const lines = this.#lines;
    this.#lines = [];
    this.#flushing = this.#flushing.then(() =>
      Deno.writeTextFile(file, lines.join("\n") + "\n", { append: true })
    );
  }

  /** Reads what is pending, ends the watch and writes its end. */
  async close(): Promise<void> {
    if (this.#closed) return;
    // The kernel hands events over within milliseconds: wait (real time, a few ms at most) until
    // none came for a moment, so the worker's last writes are read as their own versions.
    for (let i = 0; i < SETTLE_ROUNDS; i++) {
      const heard = this.#heard;
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      await this.#reading;
      if (this.#heard === heard && this.#dirty.size === 0) break;
    }
    this.#closed = true;
    for (const watcher of this.#watchers) {
      try {
        watcher.close();
      } catch {
        // Closed already.
      }
    }
    await Promise.all(this.#loops);
    await this.#reading;
    await this.#pump();
    this.#stopped = true;
    this.#note({ t: "end", at: this.#options.clock.now() });
    await this.#flushing;
  }
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
