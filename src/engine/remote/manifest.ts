/**
 * A container host's worker as a Kubernetes Pod manifest: the image, the launch's argv with the
 * prompt read from a file, its environment and folder, the copy and the attempt's private folder
 * mounted read-write at their own paths (so every path of the launch holds inside), the host's
 * `mounts` read-only, no restarts. `podman kube play` runs it here; the same spec is a Job's pod
 * template on a cluster (docs/hosts.md). JSON is YAML, so the manifest is written as JSON.
 */
import type { Launch } from "../../workers/types.ts";
import { UsageError } from "../../sys/errors.ts";
import { type ContainerHost, hostConfig } from "../core/hosts.ts";

/** What the manifest runs. */
export interface PodInput {
  /** The pod's name (lower case, digits and `-`). */
  name: string;
  launch: Pick<Launch, "argv" | "env" | "cwd" | "state">;
  /** The file the prompt is read from (null: stdin closed). */
  promptFile: string | null;
  /** Folders mounted read-write at their own paths (the copy, the private folder). */
  writable: string[];
}

/** A pod name from a run id and attempt. */
export function podName(run: string, attempt: number): string {
  return `pitroom-${run.toLowerCase().replace(/[^a-z0-9-]/g, "-")}-${attempt}`.slice(0, 60);
}

/** The Pod manifest (pure). */
export function podManifest(host: ContainerHost, input: PodInput): Record<string, unknown> {
  const rw = [...new Set([...input.writable, ...(input.launch.state ?? [])])];
  const ro = host.mounts.filter((m) => !rw.includes(m));
  const volumes = [
    ...rw.map((path, i) => ({ name: `rw-${i}`, hostPath: { path, type: "Directory" } })),
    ...ro.map((path, i) => ({ name: `ro-${i}`, hostPath: { path, type: "Directory" } })),
  ];
  const mounts = [
    ...rw.map((path, i) => ({ name: `rw-${i}`, mountPath: path })),
    ...ro.map((path, i) => ({ name: `ro-${i}`, mountPath: path, readOnly: true })),
  ];
  const feed = input.promptFile === null ? 'exec "$@" </dev/null' : 'exec "$@" <"$PITROOM_PROMPT"';
  const env = {
    ...host.env,
    ...input.launch.env,
    ...(input.promptFile === null ? {} : { PITROOM_PROMPT: input.promptFile }),
  };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: input.name, labels: { app: "pitroom-worker" } },
    spec: {
      restartPolicy: "Never",
      ...(host.network === "host" ? { hostNetwork: true } : {}),
      containers: [{
        name: "worker",
        image: host.image,
        command: ["/bin/sh", "-c", feed, "sh", ...input.launch.argv],
        workingDir: input.launch.cwd,
        env: Object.entries(env).map(([name, value]) => ({ name, value })),
        volumeMounts: mounts,
      }],
      volumes,
    },
  };
}

/** The manifest of an example run on host `name` (`pitroom host manifest NAME`). */
export function exampleManifest(hosts: unknown, name: string): Promise<string> {
  const host = hostConfig(hosts, name);
  if (host.kind !== "container") {
    return Promise.reject(
      new UsageError(`Host "${name}" is an SSH host: only a container host has a manifest`),
    );
  }
  const manifest = podManifest(host, {
    name: podName("RUN", 1),
    launch: {
      argv: ["codex", "exec", "--json", "-C", "/COPY", "-"],
      env: { HOME: "/PRIVATE/home" },
      cwd: "/COPY",
    },
    promptFile: "/PRIVATE/prompt.txt",
    writable: ["/COPY", "/PRIVATE"],
  });
  return Promise.resolve(JSON.stringify(manifest, null, 2) + "\n");
}
