/**
 * The cluster path of a container host (`"engine": "kubernetes"`), written against the official
 * Kubernetes JavaScript client (`@kubernetes/client-node`, loaded only here, only for such a
 * host) and NOT RUN here: no cluster was reachable (docs/hosts.md says what was and was not run).
 *
 * The worker's pod is the Pod manifest of manifest.ts made a Job's template: the copy and the
 * attempt's folder are emptyDir volumes at the local paths (a cluster's nodes do not have this
 * machine's folders), the host's `mounts` are left out (the image must hold git and the worker
 * CLI), and the command waits for the copy before the worker starts and for the fetch after it
 * ends. Pitroom creates the Job, ships the box (the copy with its objects packed in, the
 * attempt's files) with `tar` over an exec, follows the worker's log, fetches the copy back with
 * `tar` over an exec into the box, writes the changed files into the run's copy as the podman
 * path does, and deletes the Job (its pod with it). A pod that fails or goes ends the attempt
 * lost, the copy untouched.
 */
import type { HeldSys } from "../../store/state.ts";
import { join } from "../../sys/path.ts";
import { git } from "../../vcs/git.ts";
import type { ProcessEnd } from "../../workers/types.ts";
import type { Launched, Launcher, LaunchJob } from "../run/launcher.ts";
import type { ShellOptions } from "../run/process.ts";
import type { ContainerHost } from "../core/hosts.ts";
import { RefusedError } from "../../sys/errors.ts";
import { podManifest, podName } from "./manifest.ts";
import { changedPaths, readReturned, writeReturned } from "./back.ts";
import { type ContainerCopy, describeLaunch, makeBox, refuseForContainer } from "./container.ts";

/** A launcher running workers as Jobs on the kubeconfig's current cluster. */
export function clusterLauncher(host: ContainerHost, copy: ContainerCopy): Launcher {
  return { run: (sys, job, shell) => runAsJob(sys, host, copy, job, shell) };
}

/** The shell that waits for the shipped copy, runs the worker, then waits to be fetched. */
const WRAP = [
  'while [ ! -e "$PITROOM_DIR/.shipped" ]; do sleep 1; done',
  '"$@" <"${PITROOM_PROMPT:-/dev/null}"',
  'echo $? >"$PITROOM_DIR/.exit"',
  'while [ ! -e "$PITROOM_DIR/.fetched" ]; do sleep 1; done',
].join("; ");

/** The Job of a pod manifest (pure): emptyDir folders, no host mounts, no retries. */
export function jobManifest(
  pod: Record<string, unknown>,
  options: { root: string; privateDir: string; deadlineS: number },
): Record<string, unknown> {
  const spec = pod.spec as Record<string, unknown>;
  const container = (spec.containers as Record<string, unknown>[])[0]!;
  const argv = (container.command as string[]).slice(4);
  const env = (container.env as { name: string; value: string }[])
    .concat([{ name: "PITROOM_DIR", value: options.privateDir }]);
  const { hostNetwork: _, volumes: __, ...rest } = spec;
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: pod.metadata,
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: options.deadlineS,
      ttlSecondsAfterFinished: 600,
      template: {
        metadata: { labels: (pod.metadata as { labels: unknown }).labels },
        spec: {
          ...rest,
          containers: [{
            ...container,
            command: ["/bin/sh", "-c", WRAP, "sh", ...argv],
            env,
            volumeMounts: [
              { name: "copy", mountPath: options.root },
              { name: "private", mountPath: options.privateDir },
            ],
          }],
          volumes: [{ name: "copy", emptyDir: {} }, { name: "private", emptyDir: {} }],
        },
      },
    },
  };
}

function lostEnd(message: string): ProcessEnd {
  return { code: null, signal: null, timedOut: false, stopped: false, stderr: "", lost: message };
}

/**
 * The client's specifier, held in a constant so that no bundler follows it: bundled, the client
 * made the shipped program 21.7 MB instead of 3.1 (every command parses the whole bundle at
 * start). From source (`deno run`) it loads from the npm cache; the compiled binary does not
 * carry it, and a cluster host is refused in one line there.
 */
const KUBERNETES_CLIENT = "@kubernetes/client-node";

async function kubernetesClient(
  host: ContainerHost,
): Promise<typeof import("@kubernetes/client-node")> {
  try {
    return await import(KUBERNETES_CLIENT);
  } catch (error) {
    throw new RefusedError(
      "host_engine",
      `Host "${host.name}": the Kubernetes client is not in this build of pitroom (${
        error instanceof Error ? error.message.split("\n")[0] : String(error)
      }); run pitroom from source (deno run) for a cluster host, or use "engine": "podman"`,
    );
  }
}

async function runAsJob(
  sys: HeldSys,
  host: ContainerHost,
  copy: ContainerCopy,
  job: LaunchJob,
  shell: ShellOptions,
): Promise<Launched> {
  refuseForContainer(job);
  const k8s = await kubernetesClient(host);
  const { Readable, Writable } = await import("node:stream");
  const kc = new k8s.KubeConfig();
  kc.loadFromDefault();
  const batch = kc.makeApiClient(k8s.BatchV1Api);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const namespace = host.namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ??
    "default";
  const launch = await describeLaunch(sys, job);
  const attempt = copy.attempt();
  const name = podName(job.runId, attempt);
  const boxDir = join(job.privateDir, "box");
  const store = {
    objectsDir: join(job.privateDir, "box-objects"),
    scratchDir: join(job.privateDir, "box-tmp"),
  };
  const start = sys.clock.now();
  let created = false;
  try {
    const state = await copy.stateAt(attempt);
    const { box } = await makeBox(sys, copy, state, { ...store, dest: boxDir });
    // The pod has none of this machine's object stores: the box's history is packed into it.
    await git(sys, ["repack", "-a", "-d", "-q"], { cwd: box.root, env: { GIT_DIR: box.gitDir } });
    await Deno.remove(join(box.objectsDir, "info", "alternates")).catch(() => undefined);
    const promptFile = launch.stdin === null ? null : join(job.privateDir, "prompt.txt");
    if (promptFile !== null) await Deno.writeTextFile(promptFile, launch.stdin!, { mode: 0o600 });
    const pod = podManifest({ ...host, mounts: [] }, {
      name,
      launch: { ...launch, argv: launch.inSandbox ?? launch.argv },
      promptFile,
      writable: [job.privateDir],
    });
    const body = jobManifest(pod, {
      root: copy.root,
      privateDir: job.privateDir,
      deadlineS: Math.ceil(shell.timeoutMs / 1000) + 120,
    });
    await batch.createNamespacedJob({ namespace, body: body as never });
    created = true;
    // The Job's pod, once it runs.
    let podId = "";
    for (;;) {
      const pods = await core.listNamespacedPod({ namespace, labelSelector: `job-name=${name}` });
      const found = pods.items.find((p) => p.status?.phase === "Running");
      if (found?.metadata?.name) {
        podId = found.metadata.name;
        break;
      }
      if (pods.items.some((p) => p.status?.phase === "Failed")) {
        return { ...gone(), end: lostEnd(`The Job of host "${host.name}" failed to start`) };
      }
      if (shell.stop?.aborted) return { ...gone(), end: { ...lostEnd("Stopped"), stopped: true } };
      await sys.sleep(1000);
    }
    const exec = new k8s.Exec(kc);
    const run = (
      command: string[],
      stdin: ReadableStream<Uint8Array> | null,
      out: WritableStream<Uint8Array> | null,
    ) =>
      new Promise<void>((resolve, reject) => {
        exec.exec(
          namespace,
          podId,
          "worker",
          command,
          out === null ? null : Writable.fromWeb(out),
          null,
          stdin === null ? null : Readable.fromWeb(stdin as never),
          false,
          (status) => status.status === "Success" ? resolve() : reject(new Error(status.message)),
        ).catch(reject);
      });
    // Ship: the box at the copy's path and the attempt's files, then the go-ahead.
    const hide = (job.secrets ?? []).filter((s) => s.startsWith(`${copy.root}/`))
      .map((s) => `--exclude=${s.slice(copy.root.length + 1)}`);
    const pack = sys.runner.spawn(["tar", "-c", "-C", box.root, ...hide, "."], { detached: true });
    await run(["tar", "-x", "-C", copy.root], pack.stdout, null);
    const files = sys.runner.spawn([
      "tar",
      "-c",
      "-C",
      job.privateDir,
      "--exclude=./box",
      "--exclude=./box-objects",
      ".",
    ], { detached: true });
    await run(["tar", "-x", "-C", job.privateDir], files.stdout, null);
    await run(["touch", `${job.privateDir}/.shipped`], null, null);
    // Follow the worker's log to its end (the container then waits to be fetched).
    const { readLines } = await import("../run/lines.ts");
    const logs = new TransformStream<Uint8Array, Uint8Array>();
    const follow = new k8s.Log(kc);
    const following = await follow.log(
      namespace,
      podId,
      "worker",
      Writable.fromWeb(logs.writable),
      {
        follow: true,
      },
    );
    const onStop = () => following.abort();
    shell.stop?.addEventListener("abort", onStop, { once: true });
    // Stopped before the listener (while the pod started): no event will come.
    if (shell.stop?.aborted) onStop();
    await readLines(logs.readable, (line, at) => shell.onStdoutLine(line, at), {
      clock: sys.clock,
      start,
    });
    shell.stop?.removeEventListener("abort", onStop);
    if (shell.stop?.aborted) return { ...gone(), end: { ...lostEnd("Stopped"), stopped: true } };
    const exitOut = new TransformStream<Uint8Array, Uint8Array>();
    const exitText = new Response(exitOut.readable).text();
    await run(["cat", `${job.privateDir}/.exit`], null, exitOut.writable);
    const code = Number((await exitText).trim());
    if (!Number.isInteger(code)) {
      return {
        ...gone(),
        end: lostEnd(`The pod of host "${host.name}" went while the worker ran`),
      };
    }
    // Fetch: the pod's copy replaces the box's files; its changes go into the copy, all at once.
    for await (const entry of Deno.readDir(box.root)) {
      if (entry.name !== ".git") await Deno.remove(join(box.root, entry.name), { recursive: true });
    }
    const unpack = sys.runner.spawn(["tar", "-x", "-C", box.root], {
      stdin: { kind: "pipe" },
      detached: true,
    });
    await run(["tar", "-c", "-C", copy.root, "--exclude=./.git", "."], null, unpack.stdin!);
    await unpack.status;
    await run(["touch", `${job.privateDir}/.fetched`], null, null);
    const changes = await changedPaths(sys, box, { ...store, base: state });
    const returned = [];
    for (const change of changes) {
      returned.push(await readReturned(sys, box, store.objectsDir, change));
    }
    await writeReturned(copy.root, returned);
    return {
      sandbox: "container",
      notes: [`The worker ran in a Kubernetes Job (${host.image}) on host "${host.name}"`],
      writable: [await Deno.realPath(copy.root)],
      end: { code, signal: null, timedOut: false, stopped: false, stderr: "" },
    };
  } finally {
    if (created) {
      await batch.deleteNamespacedJob({ name, namespace, propagationPolicy: "Background" })
        .catch(() => undefined);
    }
    for (const dir of [boxDir, store.objectsDir, store.scratchDir]) {
      await Deno.remove(dir, { recursive: true }).catch(() => undefined);
    }
  }
}

function gone(): Omit<Launched, "end"> {
  return { sandbox: "container", notes: [], writable: [] };
}
