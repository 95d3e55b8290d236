/**
 * `pitroom host serve`, the host's side of a remote run, spoken over the SSH channel (frames.ts):
 * it takes the job, tells which states of the repository it keeps (`have`), takes the bundle of
 * the rest, makes a private copy from it, runs the worker there through the local launcher (this
 * host's environment, guard and sandbox), streams the worker's lines back as they come, and at
 * the end sends the files the worker changed in the copy (their bytes and modes) and the ones it
 * removed. A `stop` message, or the channel closing, stops the worker; its folder goes either way.
 */
import type { HeldSys } from "../../store/state.ts";
import { dirname, join } from "../../sys/path.ts";
import { lstatOrNull } from "../../sys/fs.ts";
import { git } from "../../vcs/git.ts";
import { copyRepo, makeCopy } from "../../vcs/copy.ts";
import type { RepoInfo } from "../../vcs/repo.ts";
import { BACKENDS } from "../../workers/registry.ts";
import { WORKER_NAMES, type WorkerName } from "../../workers/names.ts";
import { MODE_NAMES } from "../../workers/modes.ts";
import type { Mode } from "../../workers/names.ts";
import { sandboxSettingOf } from "../../confine/sandboxing.ts";
import { localLauncher } from "../run/launcher.ts";
import { FrameReader, FrameWriter } from "./frames.ts";
import { badReturnedPath, changedPaths, readReturned } from "./back.ts";

/** The job a host gets (the first message). */
export interface RemoteJob {
  t: "job";
  v: 1;
  run: string;
  attempt: number;
  /** Names the repository (its cache on the host). */
  repo: string;
  /** The copy's state: the commit standing for it, its tree and the user's HEAD. */
  commit: string;
  tree: string;
  head: string | null;
  objectFormat: "sha1" | "sha256";
  /** The user's `info/exclude`. */
  exclude: string;
  /** The worker's folder inside the copy ("" for its root). */
  rel: string;
  worker: WorkerName;
  mode: Mode;
  prompt: string;
  model?: string;
  effort?: string;
  web: boolean;
  sessionId?: string;
  /** The secret-looking files to hide, relative to the copy. */
  secrets: string[];
  /** The run's frozen `sandbox` setting (null: not set). */
  sandbox: unknown;
  allowLinks: boolean;
  timeoutMs: number;
}

/** How many states of a repository a host keeps named (older ones may be pruned by git gc). */
const KEEP_STATES = 32;

function checkJob(msg: Record<string, unknown>): RemoteJob {
  const job = msg as unknown as RemoteJob;
  const ok = job.t === "job" && job.v === 1 && typeof job.run === "string" &&
    /^[A-Za-z0-9_-]+$/.test(job.run) && Number.isInteger(job.attempt) &&
    /^[0-9a-f]{16,64}$/.test(job.repo) && /^[0-9a-f]{40,64}$/.test(job.commit) &&
    /^[0-9a-f]{40,64}$/.test(job.tree) &&
    (job.head === null || /^[0-9a-f]{40,64}$/.test(job.head)) &&
    (WORKER_NAMES as readonly string[]).includes(job.worker) &&
    (MODE_NAMES as readonly string[]).includes(job.mode) && typeof job.prompt === "string" &&
    typeof job.rel === "string" && (job.rel === "" || badReturnedPath(job.rel) === null) &&
    Array.isArray(job.secrets) && job.secrets.every((s) => badReturnedPath(s) === null) &&
    typeof job.timeoutMs === "number" && job.timeoutMs > 0;
  if (!ok) throw new Error("a bad job");
  return job;
}

/** The host's cache of a repository: a bare repository, made once. */
async function cacheOf(sys: HeldSys, work: string, job: RemoteJob): Promise<RepoInfo> {
  const dir = join(work, "repos", `${job.repo}.git`);
  const info: RepoInfo = {
    root: dir,
    gitDir: dir,
    commonDir: dir,
    objectsDir: join(dir, "objects"),
    indexFile: join(dir, "index"),
    objectFormat: job.objectFormat,
  };
  if (await lstatOrNull(join(dir, "HEAD")) !== null) return info;
  await Deno.mkdir(dirname(dir), { recursive: true, mode: 0o700 });
  // Made aside and moved in: two runs starting at once find one whole repository.
  const temp = `${dir}.${crypto.randomUUID()}`;
  await git(sys, ["init", "-q", "--bare", `--object-format=${job.objectFormat}`, temp], {
    cwd: work,
  });
  await Deno.rename(temp, dir).catch(async () => {
    await Deno.remove(temp, { recursive: true }).catch(() => undefined);
  });
  return info;
}

async function statesKept(sys: HeldSys, cache: RepoInfo): Promise<string[]> {
  const out = await git(sys, [
    "for-each-ref",
    "--sort=-creatordate",
    "--format=%(objectname)",
    "refs/pitroom/states/",
  ], { cwd: cache.gitDir, env: { GIT_DIR: cache.gitDir } });
  return out.stdout.split("\n").filter(Boolean);
}

async function hasCommit(sys: HeldSys, cache: RepoInfo, id: string): Promise<boolean> {
  const out = await git(sys, ["cat-file", "-e", `${id}^{commit}`], {
    cwd: cache.gitDir,
    env: { GIT_DIR: cache.gitDir },
    okCodes: [0, 1, 128],
  });
  return out.code === 0;
}

/** Takes the bundle into the cache and names its state; drops names beyond the newest kept. */
async function takeBundle(
  sys: HeldSys,
  cache: RepoInfo,
  job: RemoteJob,
  bytes: Uint8Array | undefined,
  scratch: string,
): Promise<void> {
  const env = { GIT_DIR: cache.gitDir };
  if (bytes !== undefined && bytes.length > 0) {
    const file = join(scratch, "state.bundle");
    await Deno.writeFile(file, bytes);
    await git(sys, ["fetch", "-q", "--no-tags", file, "refs/pitroom/state"], {
      cwd: cache.gitDir,
      env,
    });
    await Deno.remove(file);
  }
  if (!(await hasCommit(sys, cache, job.commit))) throw new Error("the state did not arrive");
  await git(sys, ["update-ref", `refs/pitroom/states/${job.commit}`, job.commit], {
    cwd: cache.gitDir,
    env,
  });
  const kept = await statesKept(sys, cache);
  for (const old of kept.slice(KEEP_STATES)) {
    await git(sys, ["update-ref", "-d", `refs/pitroom/states/${old}`], {
      cwd: cache.gitDir,
      env,
      okCodes: [0, 1],
    });
  }
}

/** Serves one launch over `input`/`output`; resolves with the exit code. */
export async function serveLaunch(
  sys: HeldSys,
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
): Promise<number> {
  const reader = new FrameReader(input);
  const writer = new FrameWriter(output);
  const work = dirname(sys.stateDir);
  let runDir: string | null = null;
  try {
    const first = await reader.next();
    if (first === null) return 2;
    const job = checkJob(first.msg);
    const cache = await cacheOf(sys, work, job);
    await writer.send({ t: "have", tips: await statesKept(sys, cache) });
    const bundle = await reader.next();
    if (bundle === null || bundle.msg.t !== "bundle") throw new Error("no state came");
    runDir = join(work, "runs", `${job.run}-${job.attempt}-${crypto.randomUUID().slice(0, 8)}`);
    const scratch = join(runDir, "tmp");
    await Deno.mkdir(scratch, { recursive: true, mode: 0o700 });
    await takeBundle(sys, cache, job, bundle.bytes, scratch);
    const root = join(runDir, "copy");
    const store = { objectsDir: join(runDir, "objects"), scratchDir: scratch };
    await Deno.mkdir(store.objectsDir, { recursive: true, mode: 0o700 });
    const before = { tree: job.tree, head: job.head, bareDirs: [], ignored: [] };
    await makeCopy(sys, cache, { ...store, dest: root, snapshot: before });
    await Deno.writeTextFile(join(root, ".git", "info", "exclude"), job.exclude);
    const copy = copyRepo(root, job.objectFormat);
    await writer.send({ t: "ready", root });

    // The channel: a `stop` stops the worker; the channel closing (a dropped connection) too.
    const stop = new AbortController();
    let gone = false;
    const listening = (async () => {
      try {
        for (;;) {
          const frame = await reader.next();
          if (frame === null) break;
          if (frame.msg.t === "stop") stop.abort(new Error("stop"));
        }
      } catch {
        // A broken channel is a closed one.
      }
      gone = true;
      stop.abort(new Error("gone"));
    })();
    const send = (msg: { t: string; [k: string]: unknown }) => {
      writer.send(msg).catch(() => {
        gone = true;
        stop.abort(new Error("gone"));
      });
    };
    const { setting } = await sandboxSettingOf(sys, { sandbox: job.sandbox });
    const privateDir = join(runDir, "private");
    await Deno.mkdir(privateDir, { recursive: true, mode: 0o700 });
    const launched = await localLauncher.run(sys, {
      backend: BACKENDS[job.worker],
      runId: job.run,
      mode: job.mode,
      prompt: job.prompt,
      cwd: job.rel === "" ? root : join(root, job.rel),
      privateDir,
      web: job.web,
      sandbox: setting,
      secrets: job.secrets.map((s) => join(root, s)),
      isolation: { links: [], allowLinks: job.allowLinks },
      ...(job.model === undefined ? {} : { model: job.model }),
      ...(job.effort === undefined ? {} : { effort: job.effort }),
      ...(job.sessionId === undefined ? {} : { sessionId: job.sessionId }),
    }, {
      timeoutMs: job.timeoutMs,
      stop: stop.signal,
      onSpawn: (pid) => send({ t: "spawned", pid }),
      onStdoutLine: (line) => send({ t: "o", l: line }),
      // Hosts run the built-in workers only (ssh_launcher.ts), which have no talk.
      onStreamLine: (line) => send({ t: "o", l: line }),
      onHeard: () => {},
      onStderrLine: (line) => send({ t: "e", l: line }),
    });
    if (gone) return 1;
    const realRoot = await Deno.realPath(root);
    const writable = launched.writable === null
      ? null
      : launched.writable.some((w) =>
        w === realRoot || realRoot.startsWith(`${w}/`) || w.startsWith(`${realRoot}/`)
      );
    const changes = await changedPaths(sys, copy, { ...store, base: before });
    await writer.send({
      t: "end",
      end: launched.end,
      sandbox: launched.sandbox,
      notes: launched.notes,
      ...(launched.hidden === undefined ? {} : { hidden: launched.hidden }),
      copyWritable: writable,
      files: changes.length,
    });
    // The bytes are the snapshot's blobs (the file's bytes as on disk, a link's target): read by
    // their ids, so a name that is not UTF-8 (which Deno cannot open) goes back as it is.
    for (const change of changes) {
      const file = await readReturned(sys, copy, store.objectsDir, change);
      if (file.mode === null) await writer.send({ t: "gone", p: file.path });
      else await writer.send({ t: "file", p: file.path, m: file.mode }, file.bytes);
    }
    await writer.send({ t: "done", files: changes.length });
    await listening.catch(() => undefined);
    return 0;
  } catch (error) {
    await writer.send({
      t: "error",
      message: error instanceof Error ? error.message : String(error),
    })
      .catch(() => undefined);
    return 1;
  } finally {
    await writer.close();
    await reader.cancel();
    if (runDir !== null) await Deno.remove(runDir, { recursive: true }).catch(() => undefined);
  }
}
