/**
 * The interleaved rounds of the tree benchmark on one generated repository. Each round times,
 * in this order: `git status --porcelain`; three snapshots (the very first one with an empty
 * Pitroom store, a run's first one with a fresh index seeded from the user's, and the repeat
 * after a worker that changed nothing, which starts from the kept index);
 * a whole write run and a whole read run around a worker that does nothing (the engine's own
 * cost of each mode: snapshots, ignored-file watch, secrets check, collection), a write run
 * whose worker edits 20 files (each change read and kept by the run's watch of the tree; the run
 * is reverted afterwards, untimed), and that watch alone started and ended with no change;
 * `git worktree add --detach`; and `makeCopy` at the round's snapshot. Each worktree is moved
 * aside and pruned from the repository at once (untimed), so the user-like repository stays as
 * it was; worktrees and copies are deleted after the last round.
 */
import { join } from "node:path";
import { realRunner } from "../../src/sys/real.ts";
import type { Env } from "../../src/sys/mod.ts";
import { findRepo, type RepoInfo } from "../../src/vcs/repo.ts";
import { type Snapshot, snapshot } from "../../src/vcs/snapshot.ts";
import { droppedIndex } from "../../src/vcs/quick_snapshot.ts";
import { makeCopy } from "../../src/vcs/copy.ts";
import type { GitSys } from "../../src/vcs/git.ts";
import { interleave, type Series, series } from "../overhead/_measure.ts";
import { createRun } from "../../src/engine/request/create.ts";
import { executeRun } from "../../src/engine/run/lifecycle.ts";
import { fakeBackend, type FakeStep } from "../../tests/support/fake_backend.ts";
import { revertRun } from "../../src/engine/runs/revert.ts";
import { TreeWatch } from "../../src/engine/tree/tree_watch.ts";
import { realClock } from "../../src/sys/real.ts";
import { treeFolders } from "../../src/vcs/folders.ts";
import { testSys } from "../../tests/support/sys.ts";

/** The series of one benchmark run. */
export interface RoundSeries {
  status: Series;
  /**
   * The first snapshot ever taken of the repository: a fresh index seeded from the user's, and
   * an empty Pitroom store, so every new blob and tree is written as a loose object.
   */
  snapshotNewStore: Series;
  /**
   * A run's first snapshot (the one before the worker): a fresh throwaway index seeded from the
   * user's; the store has the objects already.
   */
  snapshotFresh: Series;
  /** The snapshot after a worker that changed nothing: `base` and the kept index. */
  snapshotRepeat: Series;
  /** A write run (`executeRun`) whose worker answers at once and changes nothing. */
  writeRun: Series;
  /** The same as a read run: the ignored files are kept, and the run is checked unchanged. */
  readRun: Series;
  /** A write run whose worker edits 20 tracked files (reverted after, untimed). */
  editRun: Series;
  /** The run's watch of the tree alone: started on HEAD's folders and ended, nothing changed. */
  watch: Series;
  worktreeAdd: Series;
  copy: Series;
}

/** What the tree should hold, checked on every round so a broken step cannot look fast. */
export interface Expected {
  /** Lines of `git status --porcelain`. */
  statusLines: number;
  /** Files in a snapshot's tree. */
  snapshotFiles: number;
  /** A file only the snapshot (not HEAD) has, relative to the root. */
  untrackedFile: string;
}

/** Options of `measureRounds`. */
export interface RoundOptions {
  root: string;
  /** Scratch space for state dirs, worktrees and copies (same file system as `root`). */
  work: string;
  env: Record<string, string>;
  rounds: number;
  warmup: number;
  expected: Expected;
  log: (line: string) => void;
  /** False: `git worktree add` and the copy are not measured (their series are all 0). */
  copies: boolean;
}

function fixedEnv(vars: Record<string, string>): Env {
  return { get: (name) => vars[name], toObject: () => ({ ...vars }) };
}

async function run(sys: GitSys, cwd: string, args: string[]): Promise<string> {
  const out = await sys.runner.run(["git", ...args], { cwd, env: sys.env.toObject() });
  if (out.code !== 0) throw new Error(`git ${args.join(" ")} exited ${out.code}: ${out.stderr}`);
  return out.stdout;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

async function treeFiles(sys: GitSys, repo: RepoInfo, objectsDir: string, tree: string) {
  const out = await sys.runner.run(["git", "ls-tree", "-r", "-z", "--name-only", tree], {
    cwd: repo.root,
    env: {
      ...sys.env.toObject(),
      GIT_DIR: repo.gitDir,
      GIT_OBJECT_DIRECTORY: objectsDir,
      GIT_ALTERNATE_OBJECT_DIRECTORIES: repo.objectsDir,
    },
  });
  return out.stdout.split("\0").filter((name) => name !== "").length;
}

/**
 * One whole run of `mode` in `root` with a worker that answers "Done" and changes nothing, in a
 * state dir shared by every round (so the store holds the objects, as for a user's second run).
 * Timed from `executeRun` to its record; the run must end ok.
 */
async function timedRun(
  root: string,
  stateDir: string,
  env: Record<string, string>,
  mode: "read" | "write",
  steps: FakeStep[] = [],
): Promise<number> {
  const sys = testSys({ stateDir, cwd: root, env });
  const record = await createRun(sys, {
    task: "answer and change nothing",
    mode,
    cwd: root,
    chain: [{ worker: "opencode" }],
    timeoutMs: 300_000,
  });
  const backend = fakeBackend(() => [...steps, { answer: "Done" }]);
  const { ms, value } = await timed(() =>
    executeRun(sys, record.id, { maxParallel: 20, backends: () => backend })
  );
  if (value.outcome !== "ok") {
    throw new Error(`the ${mode} run ended ${value.outcome}: ${value.message ?? ""}`);
  }
  if (steps.length > 0) {
    if (value.changes?.files.length !== steps.length) {
      throw new Error(`the run changed ${value.changes?.files.length} files, not ${steps.length}`);
    }
    await revertRun(sys, record.id);
  }
  return ms;
}

/** The worker's edits of the edit run: a line appended to each of 20 tracked files. */
async function editSteps(sys: GitSys, root: string): Promise<FakeStep[]> {
  const listed = await run(sys, root, ["ls-files", "-z"]);
  const paths = listed.split("\0").filter((p) => p.endsWith(".ts") || p.endsWith(".txt"))
    .slice(0, 20);
  const steps: FakeStep[] = [];
  for (const path of paths) {
    const text = await Deno.readTextFile(join(root, path));
    steps.push({ writeFile: path, content: `${text}// edited by the worker\n` });
  }
  return steps;
}

/** Runs the rounds and returns the series of each measurement. */
export async function measureRounds(options: RoundOptions): Promise<RoundSeries> {
  const sys: GitSys = { runner: realRunner, env: fixedEnv(options.env) };
  const repo = await findRepo(sys, options.root);
  if (repo === null) throw new Error(`no repository at "${options.root}"`);
  const expected = options.expected;
  const trash = join(options.work, "trash");
  await Deno.mkdir(trash, { recursive: true });
  let round = 0;
  // The state of the current round: a fresh Pitroom state dir, its first snapshot.
  let state = "";
  let first: Snapshot | null = null;
  const store = () => ({ objectsDir: join(state, "repos", "bench", "objects") });
  const index = () => join(state, "run", "index");
  const runState = join(options.work, "runs-state");
  const edits = await editSteps(sys, repo.root);

  const measurements = {
    status: async () => {
      const { ms, value } = await timed(() => run(sys, repo.root, ["status", "--porcelain"]));
      const lines = value.split("\n").filter((line) => line !== "").length;
      if (lines !== expected.statusLines) {
        throw new Error(`git status listed ${lines} entries, not ${expected.statusLines}`);
      }
      return ms;
    },
    snapshotNewStore: async () => {
      state = join(options.work, `state-${round++}`);
      await Deno.mkdir(join(state, "run"), { recursive: true });
      const { ms, value } = await timed(() =>
        snapshot(sys, repo, { ...store(), indexFile: index(), keepOnDemand: true })
      );
      // As the engine's snapshot before a worker: the kept index is written only if the snapshot
      // after cannot take its quick path (vcs/quick_after.ts), which it takes here.
      const files = await treeFiles(sys, repo, store().objectsDir, value.tree);
      if (files !== expected.snapshotFiles) {
        throw new Error(`the snapshot holds ${files} files, not ${expected.snapshotFiles}`);
      }
      first = value;
      return ms;
    },
    snapshotFresh: async () => {
      const other = join(state, "run", "index-fresh");
      const { ms, value } = await timed(() =>
        snapshot(sys, repo, { ...store(), indexFile: other, keepOnDemand: true })
      );
      await droppedIndex(other);
      if (value.tree !== first!.tree) throw new Error("a second snapshot gave another tree");
      return ms;
    },
    snapshotRepeat: async () => {
      const { ms, value } = await timed(() =>
        snapshot(sys, repo, { ...store(), indexFile: index(), base: first! })
      );
      if (value.tree !== first!.tree) throw new Error("the repeat snapshot gave another tree");
      return ms;
    },
    writeRun: () => timedRun(repo.root, runState, options.env, "write"),
    readRun: () => timedRun(repo.root, runState, options.env, "read"),
    editRun: () => timedRun(repo.root, runState, options.env, "write", edits),
    watch: async () => {
      const { ms } = await timed(async () => {
        const folders = await treeFolders(sys, repo, { ...store(), treeish: "HEAD^{tree}" });
        const watch = await TreeWatch.start({
          root: repo.root,
          objectsDir: store().objectsDir,
          file: join(state, "run", "versions.jsonl"),
          clock: realClock,
          folders: ["", ...folders],
        });
        await watch.close();
      });
      return ms;
    },
    worktreeAdd: async () => {
      const dir = join(state, "worktree");
      const { ms } = await timed(() =>
        run(sys, repo.root, ["worktree", "add", "--quiet", "--detach", dir])
      );
      // Moved aside, not deleted: deleting 31,000 files loads the disk for seconds and would
      // slow whatever is timed next. `prune` then drops the worktree's entry from the repo.
      await Deno.rename(dir, join(trash, `worktree-${round}`));
      await run(sys, repo.root, ["worktree", "prune"]);
      return ms;
    },
    copy: async () => {
      const dest = join(state, "copy");
      const { ms } = await timed(() => makeCopy(sys, repo, { ...store(), dest, snapshot: first! }));
      const copied = await Deno.stat(join(dest, expected.untrackedFile));
      if (!copied.isFile) throw new Error(`the copy lacks "${expected.untrackedFile}"`);
      await Deno.rename(state, join(trash, `state-${round}`));
      return ms;
    },
  };
  if (!options.copies) {
    measurements.worktreeAdd = () => Promise.resolve(0);
    measurements.copy = async () => {
      await Deno.rename(state, join(trash, `state-${round}`));
      return 0;
    };
  }
  const samples = await interleave(measurements, {
    rounds: options.rounds,
    warmup: options.warmup,
    onRound: (n) => options.log(`round ${n}/${options.rounds} done`),
  });
  const worktrees = await run(sys, repo.root, ["worktree", "list", "--porcelain"]);
  if (worktrees.split("\n").filter((line) => line.startsWith("worktree ")).length !== 1) {
    throw new Error(`worktrees left registered in the repository:\n${worktrees}`);
  }
  options.log("removing the worktrees and copies");
  await Deno.remove(trash, { recursive: true });
  return {
    status: series(samples.status),
    snapshotNewStore: series(samples.snapshotNewStore),
    snapshotFresh: series(samples.snapshotFresh),
    snapshotRepeat: series(samples.snapshotRepeat),
    writeRun: series(samples.writeRun),
    readRun: series(samples.readRun),
    editRun: series(samples.editRun),
    watch: series(samples.watch),
    worktreeAdd: series(samples.worktreeAdd),
    copy: series(samples.copy),
  };
}
