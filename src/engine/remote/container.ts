/**
 * The container launcher: an isolate run's worker in an OCI container, started from the Pod
 * manifest of manifest.ts by the host's engine (`podman kube play`, or `docker run` of the
 * manifest's container: engines.ts holds the commands the two differ in). The launch is described
 * here as the local launcher describes it (this machine's environment and guard); the container's
 * own copy (the box: a second copy of the run's copy, in the attempt's folder) is mounted at the
 * local copy's path, so every path the worker sees and writes is the local one. Its lines come
 * from the container's log as they are written. When it ends, the files it changed in the box are
 * written into the run's copy only once all were read (back.ts); a container that dies or is
 * removed under it ends the attempt lost and the copy is left as it was. The pod (docker: the
 * container) goes either way.
 */
import type { HeldSys } from "../../store/state.ts";
import { join } from "../../sys/path.ts";
import { RefusedError } from "../../sys/errors.ts";
import type { Launch, ProcessEnd, WorkerName } from "../../workers/types.ts";
import type { Snapshot } from "../../vcs/snapshot.ts";
import { copyRepo, makeCopy } from "../../vcs/copy.ts";
import { workerEnv } from "../../confine/env.ts";
import type { Launched, Launcher, LaunchJob } from "../run/launcher.ts";
import { killGroup, type ShellOptions, writeLaunchFiles } from "../run/process.ts";
import { readLines } from "../run/lines.ts";
import { ensureFirstStart } from "../run/first_start.ts";
import { timingMark } from "../../sys/timing.ts";
import { startAlone, type StartGate } from "../run/start_alone.ts";
import type { ContainerHost } from "../core/hosts.ts";
import { podManifest, podName } from "./manifest.ts";
import {
  type ContainerEngine,
  engineCall,
  engineOf,
  engineReason,
  type PodNames,
} from "./engines.ts";
import { changedPaths, MAX_RETURNED_BYTES, readReturned, writeReturned } from "./back.ts";
import type { CopyState } from "./ssh_launcher.ts";

/** What the container launcher knows of the run's copy: the SSH launcher's and its snapshot. */
export interface ContainerCopy extends CopyState {
  /** The snapshot the copy was made from (its tree is `tree`). */
  before: Snapshot;
}

/** Time a stopped container gets between SIGTERM and SIGKILL (`podman stop -t`). */
const STOP_GRACE_S = 3;

/** A launcher running workers in containers of `host`. */
export function containerLauncher(host: ContainerHost, copy: ContainerCopy): Launcher {
  return { run: (sys, job, shell) => runInContainer(sys, host, copy, job, shell) };
}

/** Refuses what a container host cannot run, before anything is made. */
export function refuseForContainer(job: LaunchJob): void {
  if (job.backend.cli !== undefined) {
    throw new RefusedError(
      "host_worker",
      `Worker "${job.backend.name}" is an ACP worker of this machine's config: hosts run the built-in workers only`,
    );
  }
}

/** The launch as the local launcher describes it, its files written and state folders made. */
export async function describeLaunch(sys: HeldSys, job: LaunchJob): Promise<Launch> {
  const { baseEnv, pathPrefix } = await workerEnv(sys, {
    worker: job.backend.name as WorkerName,
    runId: job.runId,
  });
  const launch = job.backend.launch({
    mode: job.mode,
    prompt: job.prompt,
    cwd: job.cwd,
    privateDir: job.privateDir,
    web: job.web,
    baseEnv,
    pathPrefix,
    ...(job.model === undefined ? {} : { model: job.model }),
    ...(job.effort === undefined ? {} : { effort: job.effort }),
    ...(job.sessionId === undefined ? {} : { sessionId: job.sessionId }),
  });
  await writeLaunchFiles(launch);
  for (const dir of launch.state ?? []) await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  // The CLI's state folders are this machine's, mounted: its first start is done here as for a
  // local run (the same CLI when `mounts` bring it; a failure is the run's to report).
  await ensureFirstStart(sys, launch);
  return launch;
}

/** The object stores the copy borrows (its `alternates`), as folders of this machine. */
export async function alternatesOf(root: string): Promise<string[]> {
  const file = join(root, ".git", "objects", "info", "alternates");
  const text = await Deno.readTextFile(file).catch(() => "");
  return text.split("\n").filter((l) => l !== "" && !l.startsWith("#")).map((l) =>
    l.startsWith('"') ? JSON.parse(l) as string : l
  );
}

/**
 * The box: a second copy of the run's copy at `dest`, at the copy's state `state` (as the attempt
 * starts: `CopyState.stateAt`), borrowing the copy's objects and the stores the copy borrows, so
 * its git works where only those stores are mounted.
 */
export async function makeBox(
  sys: HeldSys,
  copy: ContainerCopy,
  state: Snapshot,
  options: { dest: string; objectsDir: string; scratchDir: string },
) {
  const { dest, ...store } = options;
  const box = await makeCopy(sys, copyRepo(copy.root, copy.objectFormat), {
    ...store,
    dest,
    snapshot: state,
  });
  const borrowed = await alternatesOf(copy.root);
  const lines = [join(copy.root, ".git", "objects"), ...borrowed, store.objectsDir];
  await Deno.writeTextFile(
    join(box.objectsDir, "info", "alternates"),
    lines.map((l) => /[\n"]/.test(l) ? JSON.stringify(l) : l).join("\n") + "\n",
  );
  return { box, borrowed };
}

/** The end of an attempt whose container was lost. */
function lostEnd(message: string, stderr: string): ProcessEnd {
  return { code: null, signal: null, timedOut: false, stopped: false, stderr, lost: message };
}

async function runInContainer(
  sys: HeldSys,
  host: ContainerHost,
  copy: ContainerCopy,
  job: LaunchJob,
  shell: ShellOptions,
): Promise<Launched> {
  refuseForContainer(job);
  const engine = engineOf(host);
  const launch = await describeLaunch(sys, job);
  timingMark(sys, "pod-described");
  const attempt = copy.attempt();
  const pod = podName(job.runId, attempt);
  const names = { pod, worker: `${pod}-worker` };
  const boxDir = join(job.privateDir, "box");
  const store = {
    objectsDir: join(job.privateDir, "box-objects"),
    scratchDir: join(job.privateDir, "box-tmp"),
  };
  const file = join(job.privateDir, "pod.json");
  const envFile = join(job.privateDir, "pod.env");
  const seccompFile = join(job.privateDir, "pod.seccomp.json");
  const start = sys.clock.now();
  let played = false;
  let gate: StartGate | null = null;
  try {
    // The box holds the copy as it stands: a follow-up's worker sees the run before's work.
    const state = await copy.stateAt(attempt);
    const { box, borrowed } = await makeBox(sys, copy, state, { ...store, dest: boxDir });
    timingMark(sys, "pod-box-made");
    const promptFile = launch.stdin === null ? null : join(job.privateDir, "prompt.txt");
    if (promptFile !== null) await Deno.writeTextFile(promptFile, launch.stdin!, { mode: 0o600 });
    // Secret-looking files are covered with an empty file, as the sandbox hides them here.
    const empty = join(job.privateDir, "hidden-empty");
    await Deno.writeTextFile(empty, "", { mode: 0o400 });
    // The container's temp folder is the attempt's, as in the sandbox here.
    const tmp = join(job.privateDir, "tmp");
    await Deno.mkdir(tmp, { recursive: true, mode: 0o700 });
    const env = { ...launch.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp };
    const manifest = podManifest(host, {
      name: pod,
      launch: { ...launch, env, argv: launch.inSandbox ?? launch.argv },
      promptFile,
      writable: [{ from: box.root, at: copy.root }, job.privateDir],
      readOnly: [...borrowed, sys.state.paths.guard],
      hidden: { files: (job.secrets ?? []).filter((s) => s.startsWith(`${copy.root}/`)), empty },
    });
    await Deno.writeTextFile(file, JSON.stringify(manifest, null, 2) + "\n");
    // Launches that must start one at a time (codex's helper folder in its shared home) wait for
    // the one before to print its first line, as here.
    gate = await startAlone(sys, launch.startAlone);
    const call = engine.start(manifest, {
      file,
      names,
      labels: { "pitroom.run": job.runId, "pitroom.attempt": String(attempt) },
      envFile,
      seccompFile,
      user: `${Deno.uid() ?? 0}:${Deno.gid() ?? 0}`,
    });
    for (const { path, text } of call.files) {
      await Deno.writeTextFile(path, text, { mode: 0o600 });
    }
    // A start that fails may still leave a created container: it is removed either way.
    played = true;
    const play = await engineCall(sys, host, call.args, call.env);
    timingMark(sys, "pod-played");
    if (play.code !== 0) {
      throw new RefusedError(
        "host_unreachable",
        `Host "${host.name}" (${host.engine} ${host.image}) cannot run the worker: ${
          engineReason(play.stderr) || `${engine.program} ${call.args[0]} exited ${play.code}`
        }`,
        { hint: "pitroom doctor" },
      );
    }
    const followed = await follow(sys, host, names, shell, { start, gate });
    if (followed.lost !== undefined) {
      return {
        sandbox: "container",
        notes: [],
        writable: [],
        end: { ...lostEnd(followed.lost, followed.stderr), stopped: followed.stopped },
      };
    }
    timingMark(sys, "pod-worker-ended");
    // The worker ended: what it changed in the box goes into the copy, all or nothing.
    const changes = await changedPaths(sys, box, { ...store, base: state });
    const files = [];
    let bytes = 0;
    for (const change of changes) {
      const returned = await readReturned(sys, box, store.objectsDir, change);
      bytes += returned.bytes?.length ?? 0;
      if (bytes > MAX_RETURNED_BYTES) {
        return {
          sandbox: "container",
          notes: [],
          writable: [],
          end: lostEnd(`The container of host "${host.name}" wrote too much`, followed.stderr),
        };
      }
      files.push(returned);
    }
    await writeReturned(copy.root, files);
    timingMark(sys, "pod-changes-back");
    return {
      sandbox: "container",
      notes: [
        `The worker ran in a ${host.engine} container (${host.image}) on host "${host.name}"`,
      ],
      writable: [await Deno.realPath(copy.root)],
      end: {
        code: followed.code,
        signal: null,
        timedOut: followed.timedOut,
        stopped: followed.stopped,
        stderr: followed.stderr,
      },
    };
  } finally {
    gate?.release();
    if (played) await engineCall(sys, host, engine.remove(names)).catch(() => undefined);
    timingMark(sys, "pod-removed");
    for (const dir of [boxDir, store.objectsDir, store.scratchDir, file, envFile, seccompFile]) {
      await Deno.remove(dir, { recursive: true }).catch(() => undefined);
    }
    timingMark(sys, "pod-box-removed");
  }
}

interface Followed {
  code: number | null;
  stopped: boolean;
  timedOut: boolean;
  stderr: string;
  /** Set when the container died or went under the worker. */
  lost?: string;
}

/**
 * Follows the container's log to its end (`logs -f`), each line to the shell; stop and the
 * timeout stop the container, and where the engine refuses that, remove its pod or container
 * (the worker must end either way). Then reads how it ended.
 */
async function follow(
  sys: HeldSys,
  host: ContainerHost,
  names: PodNames,
  shell: ShellOptions,
  at: { start: number; gate: StartGate },
): Promise<Followed> {
  const engine: ContainerEngine = engineOf(host);
  const { worker } = names;
  const { start, gate } = at;
  const child = sys.runner.spawn([engine.program, ...engine.logs(worker)], {
    env: sys.env.toObject(),
    stdin: { kind: "null" },
    detached: true,
  });
  shell.onSpawn?.(child.pid);
  let stderr = "";
  let stopped = false;
  let timedOut = false;
  const ended = new AbortController();
  // Set once the pod was removed here because the engine would not stop its container.
  let removed = false;
  let stopping: Promise<void> | null = null;
  const stopContainer = () => {
    stopping ??= (async () => {
      const asked = await engineCall(sys, host, engine.stop(worker, STOP_GRACE_S))
        .catch(() => null);
      if (asked !== null && asked.code === 0) return;
      removed = true;
      await engineCall(sys, host, engine.remove(names)).catch(() => undefined);
    })();
  };
  const onStop = () => {
    stopped = true;
    stopContainer();
  };
  if (shell.stop?.aborted) onStop();
  shell.stop?.addEventListener("abort", onStop, { once: true });
  const timer = sys.sleep(shell.timeoutMs, ended.signal).then(() => {
    timedOut = true;
    stopContainer();
  }, () => {});
  const times = { clock: sys.clock, start };
  // Asked at once (each engine call costs a second or more): it answers when the container ends.
  const waiting = engineCall(sys, host, engine.wait(worker));
  try {
    await Promise.all([
      readLines(child.stdout, (line, at) => {
        gate.release();
        shell.onStdoutLine(line, at);
      }, times),
      readLines(child.stderr, (line, at) => {
        stderr = (stderr + line + "\n").slice(-64 * 1024);
        shell.onStderrLine?.(line, at);
      }, times),
      child.status,
    ]);
  } finally {
    gate.release();
    killGroup(sys, child.pid, "SIGKILL");
    ended.abort();
    await timer;
    shell.stop?.removeEventListener("abort", onStop);
  }
  const waited = await waiting;
  await stopping;
  const code = Number(waited.stdout.trim());
  // Removed here to stop it: what the worker did until then is in the box, as for a stop.
  if (removed && (waited.code !== 0 || !Number.isInteger(code))) {
    return { code: null, stopped, timedOut, stderr };
  }
  if (waited.code !== 0 || !Number.isInteger(code)) {
    return {
      code: null,
      stopped,
      timedOut,
      stderr,
      lost: `The container of host "${host.name}" went away while the worker ran${
        engineReason(waited.stderr) ? `: ${engineReason(waited.stderr)}` : ""
      }`,
    };
  }
  // Killed by a signal nobody here sent (`podman kill`, the OOM killer): what it did is unknown.
  if (code > 128 && !stopped && !timedOut) {
    return {
      code,
      stopped,
      timedOut,
      stderr,
      lost: `The container of host "${host.name}" was killed while the worker ran (exit ${code})`,
    };
  }
  return { code, stopped, timedOut, stderr };
}
