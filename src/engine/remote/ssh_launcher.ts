/**
 * The SSH launcher: an isolate run's worker on another machine. The copy's state goes over as a
 * bundle (ship.ts) of what the host lacks, the host's Pitroom runs the worker (serve.ts), its
 * lines come back as they are written (the host's copy folder named as the local copy's), and
 * the files it changed come back at the end and are written into the local copy only once all
 * arrived (back.ts). A connection that drops, or a host that breaks off, ends the attempt lost:
 * what arrived is kept, the local copy is left as it was.
 */
import type { HeldSys } from "../../store/state.ts";
import { join } from "../../sys/path.ts";
import { RefusedError } from "../../sys/errors.ts";
import type { LineTime, ProcessEnd, WorkerName } from "../../workers/types.ts";
import type { Snapshot } from "../../vcs/snapshot.ts";
import type { Launched, Launcher, LaunchJob } from "../run/launcher.ts";
import type { ShellOptions } from "../run/process.ts";
import { killGroup } from "../run/process.ts";
import { type HostConfig, serveCommand, sshArgv, type SshHost } from "../core/hosts.ts";
import { FrameReader, FrameWriter } from "./frames.ts";
import { bundleFor, stateCommit } from "./ship.ts";
import { MAX_RETURNED_BYTES, type Returned, returnedOf, writeReturned } from "./back.ts";
import type { RemoteJob } from "./serve.ts";

/** What the launcher knows of the run's copy. */
export interface CopyState {
  root: string;
  /** The state the copy was made at (a later attempt's may differ: `stateAt`). */
  tree: string;
  head: string | null;
  objectFormat: "sha1" | "sha256";
  /** The user's `info/exclude`. */
  exclude: string;
  /** Names the repository on the host. */
  repo: string;
  /** The run's frozen `sandbox` setting. */
  sandbox: unknown;
  allowLinks: boolean;
  attempt: () => number;
  /**
   * The copy's state as attempt `attempt` starts, what the host's copy is made from: the state
   * it was made at for a new run's first attempt, else a snapshot of it as it stands (a
   * follow-up's copy holds the work of the run it follows, a later attempt's the work of the
   * attempts before).
   */
  stateAt: (attempt: number) => Promise<Snapshot>;
}

/** Time past the run's timeout the host has to end the worker and answer before it is cut off. */
const ANSWER_GRACE_MS = 60_000;

/** The path of `abs` inside `root` ("" for the root), or null outside it. */
function inside(root: string, abs: string): string | null {
  if (abs === root) return "";
  return abs.startsWith(`${root}/`) ? abs.slice(root.length + 1) : null;
}

/** The environment ssh runs with: the caller's, where its agent and config are. */
function sshEnv(sys: HeldSys): Record<string, string> {
  const env = sys.env.toObject();
  const keep = ["HOME", "PATH", "USER", "LOGNAME", "SSH_AUTH_SOCK", "LANG", "TMPDIR"];
  return Object.fromEntries(keep.flatMap((k) => env[k] === undefined ? [] : [[k, env[k]!]]));
}

/** A launcher running workers on `host` over SSH. */
export function sshLauncher(host: SshHost, copy: CopyState): Launcher {
  return {
    run: (sys, job, shell) => runOverSsh(sys, host, copy, job, shell),
  };
}

function lostEnd(message: string, stderr: string): ProcessEnd {
  return { code: null, signal: null, timedOut: false, stopped: false, stderr, lost: message };
}

async function runOverSsh(
  sys: HeldSys,
  host: SshHost,
  copy: CopyState,
  job: LaunchJob,
  shell: ShellOptions,
): Promise<Launched> {
  if (job.backend.cli !== undefined) {
    // The host runs the CLIs it has by their names; a worker of the config's own (an ACP agent)
    // is not one of them.
    throw new RefusedError(
      "host_worker",
      `Worker "${job.backend.name}" is an ACP worker of this machine's config: hosts run the built-in workers only`,
    );
  }
  const start = sys.clock.now();
  const rel = inside(copy.root, job.cwd);
  if (rel === null) throw new Error(`"${job.cwd}" is not inside the copy`);
  const attempt = copy.attempt();
  const state = await copy.stateAt(attempt);
  const commit = await stateCommit(sys, copy.root, { tree: state.tree, head: copy.head });
  const child = sys.runner.spawn(sshArgv(host, serveCommand(host)), {
    cwd: job.privateDir,
    env: sshEnv(sys),
    stdin: { kind: "pipe" },
    detached: true,
  });
  shell.onSpawn?.(child.pid);
  const writer = new FrameWriter(child.stdin!);
  const reader = new FrameReader(child.stdout!);
  let sshErr = "";
  const errPump = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr!) {
      sshErr = (sshErr + decoder.decode(chunk, { stream: true })).slice(-16 * 1024);
    }
  })().catch(() => undefined);
  const ended = new AbortController();
  const cut = () => killGroup(sys, child.pid, "SIGKILL");
  // The host enforces the timeout; past it and a grace, the connection is cut.
  sys.sleep(shell.timeoutMs + ANSWER_GRACE_MS, ended.signal).then(cut, () => undefined);
  let stopped = false;
  const onStop = () => {
    stopped = true;
    writer.send({ t: "stop" }).catch(cut);
  };
  const secrets = (job.secrets ?? []).flatMap((s) => {
    const r = inside(copy.root, s);
    return r === null || r === "" ? [] : [r];
  });
  const remoteJob: RemoteJob = {
    t: "job",
    v: 1,
    run: job.runId,
    attempt,
    repo: copy.repo,
    commit,
    tree: state.tree,
    head: copy.head,
    objectFormat: copy.objectFormat,
    exclude: copy.exclude,
    rel,
    worker: job.backend.name as WorkerName,
    mode: job.mode,
    prompt: job.prompt,
    web: job.web,
    secrets,
    sandbox: copy.sandbox,
    allowLinks: copy.allowLinks,
    timeoutMs: shell.timeoutMs,
    ...(job.model === undefined ? {} : { model: job.model }),
    ...(job.effort === undefined ? {} : { effort: job.effort }),
    ...(job.sessionId === undefined ? {} : { sessionId: job.sessionId }),
  };
  const lost = (what: string) => {
    const why = sshErr.trim().split("\n").at(-1);
    return `The connection to host "${host.name}" was lost ${what}${why ? `: ${why}` : ""}`;
  };
  let result: Launched | null = null;
  try {
    // A host that is gone at once shows below, as no answer.
    await writer.send({ ...remoteJob }).catch(() => undefined);
    const have = await reader.next();
    if (have === null || have.msg.t !== "have") {
      await child.status;
      await errPump;
      // Nothing ran: a host that is down, refuses the login or has no Pitroom is a refusal.
      const why = sshErr.trim().split("\n").at(-1) ?? "";
      throw new RefusedError(
        "host_unreachable",
        `Host "${host.name}" (${host.ssh}) cannot run the worker${why ? `: ${why}` : ""}`,
        { hint: "pitroom doctor" },
      );
    }
    const tips = Array.isArray(have.msg.tips) ? have.msg.tips.map(String) : [];
    const bundle = await bundleFor(
      sys,
      copy.root,
      commit,
      tips,
      join(job.privateDir, "state.bundle"),
    );
    await writer.send({ t: "bundle" }, bundle ?? new Uint8Array(0));
    if (shell.stop?.aborted) onStop();
    shell.stop?.addEventListener("abort", onStop, { once: true });
    let remoteRoot: string | null = null;
    let spawned = false;
    const files: Returned[] = [];
    let bytes = 0;
    let end: Record<string, unknown> | null = null;
    const relay = (line: string) =>
      remoteRoot === null ? line : line.split(remoteRoot).join(copy.root);
    for (;;) {
      const frame = await reader.next().catch(() => null);
      if (frame === null) break;
      const { msg } = frame;
      const at: LineTime = { time: sys.clock.now(), since: start, start };
      if (msg.t === "ready" && typeof msg.root === "string") remoteRoot = msg.root;
      else if (msg.t === "spawned") spawned = true;
      else if (msg.t === "o" && typeof msg.l === "string") shell.onStdoutLine(relay(msg.l), at);
      else if (msg.t === "e" && typeof msg.l === "string") shell.onStderrLine?.(relay(msg.l), at);
      else if (msg.t === "error") {
        throw new HostError(`Host "${host.name}" could not run the worker: ${String(msg.message)}`);
      } else if (msg.t === "end") end = msg;
      else if (msg.t === "file" || msg.t === "gone") {
        let file: Returned;
        try {
          file = returnedOf(msg, frame.bytes);
        } catch (error) {
          throw new HostError(
            `Host "${host.name}" sent back what cannot be taken (${
              error instanceof Error ? error.message : String(error)
            }); nothing was written into the copy`,
          );
        }
        bytes += file.bytes?.length ?? 0;
        if (bytes > MAX_RETURNED_BYTES) throw new HostError("the host sent back too much");
        files.push(file);
      } else if (msg.t === "done") {
        if (end === null || msg.files !== files.length || end.files !== files.length) {
          throw new HostError("the host's files do not add up");
        }
        // Everything arrived: only now does the local copy change.
        await writeReturned(copy.root, files);
        result = await launchedOf(end, copy.root);
        break;
      }
    }
    await writer.close();
    if (result === null) {
      cut();
      await child.status;
      await errPump;
      const when = spawned ? "while the worker ran" : "before the worker started";
      return { ...noSandbox(), end: { ...lostEnd(lost(when), sshErr), stopped } };
    }
    await child.status;
    await errPump;
    return result;
  } catch (error) {
    if (error instanceof RefusedError) throw error;
    cut();
    await child.status;
    await errPump;
    const message = error instanceof HostError
      ? error.message
      : lost(`: ${error instanceof Error ? error.message : String(error)}`);
    return { ...noSandbox(), end: lostEnd(message, sshErr) };
  } finally {
    ended.abort();
    shell.stop?.removeEventListener("abort", onStop);
    await reader.cancel();
  }
}

class HostError extends Error {}

function noSandbox(): Omit<Launched, "end"> {
  return { sandbox: "none", notes: [], writable: [] };
}

async function launchedOf(end: Record<string, unknown>, root: string): Promise<Launched> {
  const e = end.end as ProcessEnd;
  const real = await Deno.realPath(root);
  const notes = Array.isArray(end.notes) ? end.notes.map(String) : [];
  return {
    end: {
      code: typeof e.code === "number" ? e.code : null,
      signal: typeof e.signal === "string" ? e.signal : null,
      timedOut: e.timedOut === true,
      stopped: e.stopped === true,
      stderr: typeof e.stderr === "string" ? e.stderr : "",
    },
    sandbox: typeof end.sandbox === "string" ? end.sandbox : "none",
    notes,
    writable: end.copyWritable === null ? null : end.copyWritable === true ? [real] : [],
    ...(typeof end.hidden === "object" && end.hidden !== null
      ? { hidden: end.hidden as Launched["hidden"] & object }
      : {}),
  };
}

export type { HostConfig };
