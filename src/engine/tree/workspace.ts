/**
 * The workspace a run's attempts work in: prepared before the first attempt (a snapshot of the
 * tree; for an isolate run the private copy), with the tree's secret-looking files the sandbox
 * hides from the worker (every run in bubblewrap; write and isolate runs unless they allow
 * secrets); where the sandbox cannot hide them, a read run reads a write-protected view without
 * them instead. Collected after the last attempt: a write run's changes recorded, a read run's
 * undone, the patch written.
 */
import type { HeldSys } from "../../store/state.ts";
import { writePatch } from "../../store/patch_file.ts";
import type { Changes, RunRecord } from "../../store/record.ts";
import { RefusedError } from "../../sys/errors.ts";
import { exists, removeIfThere } from "../../sys/fs.ts";
import { join } from "../../sys/path.ts";
import { removeView } from "../../vcs/view.ts";
import { droppedIndex } from "../../vcs/quick_snapshot.ts";
import { pausePoint } from "../core/pause.ts";
import { findSecrets, type FoundSecrets } from "../../confine/secrets.ts";
import { namePatterns, sandboxSettingOf } from "../../confine/sandboxing.ts";
import type { IgnoredWatch, TrackedTree } from "./tree.ts";
import { checkIgnored } from "./ignored_check.ts";
import type { Final } from "../core/final.ts";
import { runPatch } from "./run_patch.ts";
import type { TreeWatch } from "./tree_watch.ts";
import { MODES } from "../../workers/modes.ts";

/** Where the worker works and the snapshot its changes are measured against. */
export interface Workspace {
  /** The tree before the worker (the user's; for isolate runs, the state the copy was made at). */
  before: Changes["before"];
  /** The tree the worker changes: the user's, or the private copy. */
  work: TrackedTree;
  /** The worker's directory inside `work`. */
  cwd: string;
  /** The throwaway index of the snapshots of `work`. */
  index: string;
  /** The user's ignored files as they were before the worker. */
  ignored?: IgnoredWatch;
  /**
   * A read run's walk of its ignored files, put off because the sandbox keeps the worker from
   * writing the tree: `start()` walks them (once) before an attempt that could write it after
   * all; `watch()` is the walk, when one was started.
   */
  ignoredLater?: { start(): Promise<void>; watch(): IgnoredWatch | undefined };
  /** A read run's write-protected view without secret-looking files, when it reads one. */
  view?: TrackedTree & { release(): void; tree: string };
  /** A write run's watch of the tree, keeping each changed file's versions. */
  versions?: TreeWatch;
  /** The tree's secret-looking files and folders (absolute) the sandbox hides from the worker. */
  secrets?: string[];
}

/**
 * Snapshots the tree before the worker and, for an isolate run, makes the private copy (or opens
 * the copy of the run it continues). The record names both before anything else happens, so a
 * crash at any later point can still be reverted, applied or discarded.
 */
export async function prepareWorkspace(
  sys: HeldSys,
  record: RunRecord,
  tree: TrackedTree,
  /** A write run's watch started before its record (engine/run/ahead.ts), when there is one. */
  aheadWatch?: () => Promise<TreeWatch | null>,
): Promise<Workspace> {
  const started: {
    /** The walk, or null where it is put off (a read run in bubblewrap). */
    watch?: Promise<IgnoredWatch | null>;
    watching?: readonly string[];
    versions?: TreeWatch;
  } = {};
  // The sandbox's probe (a process of its own, once per process) beside the snapshot's walk.
  const hidingNow = secretHiding(sys, record);
  hidingNow.catch(() => undefined);
  const readRun = record.isolation === undefined && !MODES[record.mode].keepsChanges;
  // The read runs of a crew share the walk, as they share the snapshot.
  const share = readRun ? { asked: record.createdAt, now: () => sys.clock.now() } : undefined;
  let prepared: Workspace;
  try {
    prepared = await prepareOnly(sys, record, tree, hidingNow, aheadWatch, {
      watch(ignored) {
        // Ignored files are in no snapshot: their stat is recorded (kept for a read run) beside
        // the rest of the preparation (the snapshot's trees, the secrets listing, a copy or a
        // view), before the worker: from the moment git status named them, or after the
        // snapshot, again, when the snapshot's own list is another.
        if (started.watching !== undefined && sameList(started.watching, ignored)) return;
        const earlier = started.watch;
        started.watching = ignored;
        started.watch = (async () => {
          await earlier?.catch(() => undefined);
          // A read run in bubblewrap cannot write the tree, ignored files included: the walk
          // (up to 10,000 files stat'ed and 64 MiB kept; 415 ms a run in a tree whose
          // node_modules holds 10,000 files) is put off until an attempt could write it.
          if (readRun && (await hidingNow).hidden) return null;
          return await tree.watchIgnored(ignored, readRun, share);
        })();
        started.watch.catch(() => undefined);
      },
      versions: (watch) => (started.versions = watch),
    });
  } catch (error) {
    // Nothing keeps running behind a failed preparation (a refused copy, say): neither the
    // watches nor the kept index the snapshot writes in the background.
    await started.watch?.catch(() => undefined);
    await started.versions?.close();
    await droppedIndex(sys.state.paths.run(record.id).index);
    throw error;
  }
  const watched = started.watch === undefined ? undefined : await started.watch;
  if (watched !== null) return watched === undefined ? prepared : { ...prepared, ignored: watched };
  const ignored = started.watching!;
  let walk: Promise<IgnoredWatch> | undefined;
  let done: IgnoredWatch | undefined;
  return {
    ...prepared,
    ignoredLater: {
      async start() {
        walk ??= tree.watchIgnored(ignored, true, share);
        done = await walk;
      },
      watch: () => done,
    },
  };
}

/** The watch started ahead (its versions file named now), else one started here. */
async function watchOf(
  sys: HeldSys,
  tree: TrackedTree,
  file: string,
  aheadWatch: (() => Promise<TreeWatch | null>) | undefined,
): Promise<TreeWatch> {
  const ahead = aheadWatch === undefined ? null : await aheadWatch();
  if (ahead === null) return await tree.startWatch(file, sys.clock);
  try {
    await ahead.attach(file);
  } catch (error) {
    // The run's now: nothing else would end it.
    await ahead.close();
    throw error;
  }
  return ahead;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((entry, i) => entry === b[i]);
}

/**
 * `prepareWorkspace` without the watch of the ignored files, which `watch` starts once they are
 * known (again with the snapshot's own list, which is the one that counts).
 */
async function prepareOnly(
  sys: HeldSys,
  record: RunRecord,
  tree: TrackedTree,
  hidingNow: ReturnType<typeof secretHiding>,
  aheadWatch: (() => Promise<TreeWatch | null>) | undefined,
  started: { watch: (ignored: readonly string[]) => void; versions: (watch: TreeWatch) => void },
): Promise<Workspace> {
  const paths = sys.state.paths;
  const runPaths = paths.run(record.id);
  const isolation = record.isolation;
  const reuse = isolation !== undefined && record.continues !== undefined &&
    record.changes !== undefined;
  // A write run's tree is watched from before its snapshot, so no edit of the user's is missed:
  // the watch started as the run was asked for, or its own.
  const versions = isolation === undefined && MODES[record.mode].editsInPlace
    ? await watchOf(sys, tree, runPaths.versions, aheadWatch)
    : undefined;
  if (versions !== undefined) started.versions(versions);
  // Where the index and the stash stand (HEAD: the snapshot's), to tell a commit or a stash
  // during the run.
  const position = isolation === undefined && MODES[record.mode].editsInPlace
    ? tree.markIndex(runPaths.userIndex)
    : undefined;
  position?.catch(() => undefined);
  let added: readonly string[] | undefined;
  const before = reuse ? record.changes!.before : await tree.snapshot({
    // The snapshot after continues from this index: only where the worker works in place (an
    // isolate run's copy has its own). It is written only if the snapshot after cannot take its
    // quick path (vcs/quick_after.ts), or a read run's tree is not compared at all.
    ...(isolation === undefined
      ? {
        indexFile: runPaths.index,
        keepOnDemand: true,
        // The read runs of a crew share one walk of their tree (vcs/shared_snapshot.ts); a write
        // run joins one begun once its watch was in place (the walk started ahead of it).
        share: {
          asked: versions?.inPlaceAt ?? record.createdAt,
          now: () => sys.clock.now(),
        },
      }
      : {}),
    // A snapshot cannot see into submodules: write and isolate runs refuse them.
    submodules: MODES[record.mode].keepsChanges ? "refuse" : "allow",
    ignoredKnown: started.watch,
    addedKnown: (paths) => (added = paths),
  });
  // The untracked folders join the watch beside the secrets listing, before the worker starts:
  // where the snapshot's git status named them, without comparing HEAD's tree with it.
  const widened = versions === undefined ? undefined : tree.widenWatch(versions, before, added);
  widened?.catch(() => undefined);
  if (position !== undefined) before.index = await position;
  started.watch(before.ignored);
  record.repoRoot = tree.root;
  record.changes = { before, after: before.tree, files: [] };
  await sys.state.runs.write(record);
  await pausePoint(sys, "snapshot");
  const inside = async () => relativeInside(tree.root, await Deno.realPath(record.cwd));
  const hiding = await hidingNow;
  if (isolation === undefined) {
    const plain = {
      before,
      work: tree,
      cwd: record.cwd,
      index: runPaths.index,
      ...(versions === undefined ? {} : { versions }),
    };
    const [files] = await Promise.all([tree.hiddenFiles(before, hiding.patterns), widened]);
    const secrets = findSecrets(files, before.ignored, hiding.patterns);
    if (!MODES[record.mode].edits) {
      if (hiding.hidden) return { ...plain, secrets: absolute(tree.root, secrets) };
      return await readFromView(sys, record, tree, plain, inside, secrets);
    }
    if (!secrets.any) return plain;
    if (hiding.hidden && !hiding.allowed) {
      return { ...plain, secrets: absolute(tree.root, secrets) };
    }
    record.notes = [
      `The tree holds secret-looking files (${secrets.examples.join(", ")}): ${
        hiding.allowed
          ? "the worker could read them (secrets allowed)"
          : "a write run without a sandbox works in place and can read them; an isolate run leaves ignored ones out"
      }`,
    ];
    return plain;
  }
  const rel = await inside();
  const cwd = rel === "" ? isolation.copyRoot : join(isolation.copyRoot, rel);
  const index = join(runPaths.private, "copy-index");
  if (reuse) {
    if (!(await exists(join(isolation.copyRoot, ".git")))) {
      throw new RefusedError(
        "copy_gone",
        `The private copy of run "${record.continues!.run}" is gone (discarded or cleaned)`,
        { hint: "start a new isolate run instead" },
      );
    }
    const secrets = await copySecrets(record, tree, before, hiding);
    return { before, work: tree.openCopy(isolation.copyRoot), cwd, index, ...secrets };
  }
  const secrets = await copySecrets(record, tree, before, hiding);
  const work = await tree.copy(isolation.copyRoot, before, isolation.links);
  return { before, work, cwd, index, ...secrets };
}

/**
 * Whether the sandbox hides the tree's secret files here, whether the run allows them, and the
 * config's name patterns.
 */
async function secretHiding(sys: HeldSys, record: RunRecord) {
  const { setting, found } = await sandboxSettingOf(sys, record.settings);
  return {
    hidden: found?.kind === "bwrap",
    allowed: MODES[record.mode].secretsAllowed &&
      (record.allowSecrets === true || setting.allowSecrets),
    patterns: namePatterns(setting),
  };
}

/** The secret-looking paths found, absolute under `root` (an ignored folder without its `/`). */
function absolute(root: string, found: FoundSecrets): string[] {
  return [...found.tracked, ...found.ignored].map((p) => join(root, p.replace(/\/+$/, "")));
}

/** An isolate copy's tracked secret files (ignored ones are not copied): hidden, or a note. */
async function copySecrets(
  record: RunRecord,
  tree: TrackedTree,
  before: Changes["before"],
  hiding: Awaited<ReturnType<typeof secretHiding>>,
): Promise<{ secrets?: string[] }> {
  const copyRoot = record.isolation!.copyRoot;
  const secrets = findSecrets(await tree.hiddenFiles(before, hiding.patterns), [], hiding.patterns);
  if (!secrets.any) return {};
  if (hiding.hidden && !hiding.allowed) {
    return { secrets: absolute(copyRoot, secrets) };
  }
  record.notes = [
    `The copy holds tracked secret-looking files (${secrets.examples.join(", ")}): the worker ${
      hiding.allowed ? "could read them (secrets allowed)" : "can read them (no sandbox hides them)"
    }; ignored ones like .env are left out`,
  ];
  return {};
}

/**
 * A read run in a tree that holds secret-looking files (`.env`, keys, credentials, ignored ones
 * included), where no sandbox hides them, reads a shared, write-protected view of the snapshot
 * without them instead.
 */
async function readFromView(
  sys: HeldSys,
  record: RunRecord,
  tree: TrackedTree,
  plain: Workspace,
  inside: () => Promise<string>,
  secrets: FoundSecrets,
): Promise<Workspace> {
  if (!secrets.any) return plain;
  const rel = await inside();
  const view = await tree.view(plain.before, secrets.tracked);
  record.notes = [
    `Secret-looking files (${
      secrets.examples.join(", ")
    }) were kept out: the worker read a write-protected copy of the tree without them`,
  ];
  await sys.state.runs.write(record);
  return { ...plain, cwd: rel === "" ? view.root : join(view.root, rel), view };
}

/** `path` relative to `root` ("" for the root itself); `path` must be inside it. */
function relativeInside(root: string, path: string): string {
  if (path === root) return "";
  const prefix = root.endsWith("/") ? root : `${root}/`;
  if (!path.startsWith(prefix)) throw new Error(`"${path}" is not inside "${root}"`);
  return path.slice(prefix.length);
}

/** True when a read view still holds its tree; a changed view is removed (others share it). */
async function viewIntact(
  sys: HeldSys,
  record: RunRecord,
  view: NonNullable<Workspace["view"]>,
  before: Changes["before"],
): Promise<boolean> {
  const index = join(sys.state.paths.run(record.id).private, "view-index");
  const base = { tree: view.tree, head: before.head, bareDirs: [], ignored: before.ignored };
  const seen = await view.snapshot({ base, indexFile: index, readHead: false });
  if (seen.tree === view.tree) return true;
  view.release();
  await removeView(sys, view.root);
  return false;
}

/**
 * `Promise.all` that waits for every one to end (none is left running behind a failure) and then
 * throws the first failure, in the order given.
 */
async function allEnded<T extends readonly unknown[]>(
  values: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const ended = await Promise.allSettled(values);
  const failed = ended.find((result) => result.status === "rejected");
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
  return ended.map((result) => (result as PromiseFulfilledResult<unknown>).value) as never;
}

function afterSnapshot(work: TrackedTree, before: Changes["before"], index: string) {
  // Only the tree is used: HEAD is not read again.
  return work.snapshot({ base: before, indexFile: index, readHead: false });
}

/** The paths the attempts so far changed in the workspace (for the next target's handover). */
export async function changedFiles(workspace: Workspace): Promise<string[]> {
  const { work, before, index } = workspace;
  const after = (await afterSnapshot(work, before, index)).tree;
  return (await work.diff(before, after)).files.map((f) => f.path);
}

/**
 * Compares the workspace with its snapshot once the chain is done: a write or isolate run's
 * changes are recorded (and the patch written), a read run's are undone exactly. A read run
 * whose workers no sandbox let write any of the tree (`reached: false`) changed nothing there:
 * nothing is compared.
 */
export async function collectWorkspace(
  sys: HeldSys,
  record: RunRecord,
  prepared: Workspace | null,
  last: Final,
  options: { reached: boolean },
): Promise<Final> {
  if (prepared === null) return last;
  await pausePoint(sys, "collecting");
  if (!options.reached && !MODES[record.mode].keepsChanges && prepared.view === undefined) {
    return last;
  }
  const { before, work } = prepared;
  const runPaths = sys.state.paths.run(record.id);
  // Five looks at the tree after the worker that need nothing of one another, side by side (a
  // write run on 31,000 files spent ~45 ms of its ~205 after its snapshot on the other four):
  // the watch's last versions, the read view, the snapshot, where HEAD and the index stand, the
  // ignored files. All end before anything is decided; the first failure is the one reported.
  // The snapshot first: its walk starts before the other four spawn anything.
  const [after, , viewChanged, moved, ignoredViolation] = await allEnded(
    [
      afterSnapshot(work, before, prepared.index).then((snapshot) => snapshot.tree),
      prepared.versions?.close(),
      prepared.view === undefined
        ? false
        : viewIntact(sys, record, prepared.view, before).then((intact) => !intact),
      MODES[record.mode].editsInPlace && record.isolation === undefined
        ? work.moved(before, runPaths.userIndex)
        : undefined,
      checkIgnored(record, prepared.ignored ?? prepared.ignoredLater?.watch()),
    ] as const,
  );
  await removeIfThere(runPaths.userIndex);
  if (after === before.tree && ignoredViolation !== null) {
    return { ...last, outcome: "read_only_violation", message: ignoredViolation };
  }
  if (after === before.tree && viewChanged) {
    return {
      ...last,
      outcome: "read_only_violation",
      message: "The worker changed its read-only view of the tree (the view was removed)",
    };
  }
  if (after === before.tree) {
    return MODES[record.mode].keepsChanges
      ? { ...last, changes: { before, after, files: [], ...(moved ? { moved } : {}) } }
      : last;
  }
  const diff = await work.diff(before, after);
  const changes: Changes = { before, after, files: diff.files, ...(moved ? { moved } : {}) };
  if (!MODES[record.mode].usesCopy) {
    // The user's own edits while the worker worked are listed apart, not as the worker's; a file
    // both changed is split by its versions (code loaded only when the tree changed).
    const { splitChanges } = await import("./worker_changes.ts");
    const split = await splitChanges(sys, record, diff.files, {
      root: work.root,
      entries: diff.entries,
    });
    Object.assign(changes, split);
  }
  const patch = await runPatch(work, changes, diff.patch);
  changes.patchDigest = await writePatch(runPaths.patch, patch);
  if (MODES[record.mode].keepsChanges) return { ...last, changes };
  if (changes.files.length === 0) {
    // Only the user's edits changed the tree: no violation of the worker's (ignored files aside).
    return ignoredViolation === null
      ? { ...last, changes }
      : { ...last, outcome: "read_only_violation", message: ignoredViolation, changes };
  }
  await pausePoint(sys, "reverting");
  const { undoReadRun } = await import("./revert_merge.ts");
  await undoReadRun({ sys, record, tree: work }, changes);
  return {
    outcome: "read_only_violation",
    message: `The worker changed ${changes.files.length} file(s) in a read-only run: undone${
      ignoredViolation === null ? "" : `. ${ignoredViolation}`
    }`,
    changes,
    ...(last.answer === undefined ? {} : { answer: last.answer }),
  };
}
