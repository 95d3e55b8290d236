/**
 * A container host's worker as a Kubernetes Pod manifest: the image, the launch's argv with the
 * prompt read from a file, its environment and folder, the container's copy and the attempt's
 * private folder mounted read-write at the local copy's and folder's paths (so every path of the
 * launch holds inside), the host's `mounts` and the copy's object stores read-only, no restarts.
 * `podman kube play` runs it here, docker the `docker run` flags engines.ts translates it into;
 * the same spec is a Job's pod template on a cluster (docs/hosts.md). JSON is YAML, so the
 * manifest is written as JSON.
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
  /**
   * Folders mounted read-write: a path of this machine at the same path, or `from` at `at` (the
   * container's own copy at the local copy's path, so no path of the launch changes).
   */
  writable: (string | { from: string; at: string })[];
  /** More folders mounted read-only at their own paths (the copy's object stores, the guard). */
  readOnly?: string[];
  /** Files covered with the (empty) file `empty`, read-only: the secret-looking files. */
  hidden?: { files: string[]; empty: string };
}

/** A volume of the manifest: a folder or file of this machine. */
export type PodVolume = { name: string; hostPath: { path: string; type: "Directory" | "File" } };

/** The Pod manifest's shape: one container, host folders as volumes. */
export type PodManifest = {
  apiVersion: "v1";
  kind: "Pod";
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    restartPolicy: "Never";
    hostNetwork?: true;
    containers: [{
      name: string;
      image: string;
      command: string[];
      args?: string[];
      workingDir: string;
      env: { name: string; value: string }[];
      volumeMounts: { name: string; mountPath: string; readOnly?: true }[];
    }];
    volumes: PodVolume[];
  };
};

/** A pod name from a run id and attempt. */
export function podName(run: string, attempt: number): string {
  return `pitroom-${run.toLowerCase().replace(/[^a-z0-9-]/g, "-")}-${attempt}`.slice(0, 60);
}

/** The Pod manifest (pure). */
export function podManifest(host: ContainerHost, input: PodInput): PodManifest {
  const rw = new Map<string, string>();
  for (const w of [...input.writable, ...(input.launch.state ?? [])]) {
    const { from, at } = typeof w === "string" ? { from: w, at: w } : w;
    if (!rw.has(at)) rw.set(at, from);
  }
  const ro = [...new Set([...host.mounts, ...(input.readOnly ?? [])])].filter((m) => !rw.has(m));
  const binds = [...rw].map(([at, from]) => ({ at, from, readOnly: false }))
    .concat(ro.map((path) => ({ at: path, from: path, readOnly: true })));
  const covered = input.hidden?.files ?? [];
  const volumes: PodVolume[] = [
    ...binds.map((b, i) => ({
      name: `v${i}`,
      hostPath: { path: b.from, type: "Directory" as const },
    })),
    ...(covered.length === 0
      ? []
      : [{ name: "hidden", hostPath: { path: input.hidden!.empty, type: "File" as const } }]),
  ];
  const mounts = [
    ...binds.map((b, i) => ({
      name: `v${i}`,
      mountPath: b.at,
      ...(b.readOnly ? { readOnly: true as const } : {}),
    })),
    ...covered.map((path) => ({ name: "hidden", mountPath: path, readOnly: true as const })),
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
      ...(host.network === "host" ? { hostNetwork: true as const } : {}),
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
    writable: [{ from: "/PRIVATE/box", at: "/COPY" }, "/PRIVATE"],
    readOnly: ["/REPO/.git/objects"],
  });
  return Promise.resolve(JSON.stringify(manifest, null, 2) + "\n");
}
