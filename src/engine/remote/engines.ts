/**
 * The commands a container engine runs a Pod manifest with: podman plays the manifest
 * (`kube play`); docker, which has no `kube play`, runs its one container from the `docker run`
 * flags the manifest translates into (`dockerRun`). Both follow the container's log, wait for it,
 * stop and remove it with their own commands; everything else of a container run (the box, the
 * lines, the changes back, the stop's fallback) is the one launcher's (container.ts).
 */
import type { HeldSys } from "../../store/state.ts";
import type { ContainerHost } from "../core/hosts.ts";
import type { PodManifest } from "./manifest.ts";
import { seccompText } from "./seccomp.ts";

/** One attempt's pod and its worker container (podman names it `POD-worker`; docker: the same). */
export interface PodNames {
  pod: string;
  worker: string;
}

/** How a manifest is started: the engine's arguments, what its client reads, files to write. */
export interface StartCall {
  args: string[];
  /** Variables the engine's client is run with besides Pitroom's (docker's `-e NAME`). */
  env: Record<string, string>;
  /** Files written (mode 0600) before the call: docker's `--env-file` and seccomp profile. */
  files: { path: string; text: string }[];
}

/** What `start` knows besides the manifest. */
export interface StartInput {
  /** Where the manifest is written (podman reads it). */
  file: string;
  names: PodNames;
  /** Labels a lost run's container is found by (docker lists them). */
  labels: Record<string, string>;
  /** A file for the variables (docker's `--env-file`). */
  envFile: string;
  /** A file for the seccomp profile (docker's `--security-opt seccomp=FILE`). */
  seccompFile: string;
  /** `uid:gid` the worker runs as (docker; podman's pods run as the caller when rootless). */
  user: string;
}

/** The commands of one engine; the two differ only here. */
export interface ContainerEngine {
  program: "podman" | "docker";
  start(manifest: PodManifest, input: StartInput): StartCall;
  /** Follows the worker's log from its start to its end. */
  logs(worker: string): string[];
  /** Waits for the worker to end and prints its exit code. */
  wait(worker: string): string[];
  /** SIGTERM, SIGKILL `graceS` seconds later. */
  stop(worker: string, graceS: number): string[];
  /** Removes an attempt's pod or container in any state (one already gone is no error). */
  remove(names: PodNames): string[];
  /** Lists a run's containers by label, one id a line (null: its pods are found by name). */
  listRun(run: string): string[] | null;
  /** Removes listed containers. */
  removeListed(ids: string[]): string[];
  /** Succeeds when the engine has the image. */
  hasImage(image: string): string[];
  /** Succeeds when the engine's daemon answers, and how to start one (null: no daemon). */
  reach: { args: string[]; hint: string } | null;
  /** The command that installs it (a hint). */
  install: string;
}

const follow = {
  logs: (worker: string) => ["logs", "-f", worker],
  wait: (worker: string) => ["wait", worker],
  stop: (worker: string, graceS: number) => ["stop", "-t", String(graceS), worker],
};

const podman: ContainerEngine = {
  program: "podman",
  start: (_manifest, { file }) => ({ args: ["kube", "play", file], env: {}, files: [] }),
  ...follow,
  remove: ({ pod }) => ["pod", "rm", "-f", "--ignore", pod],
  listRun: () => null,
  removeListed: (ids) => ["pod", "rm", "-f", "--ignore", ...ids],
  hasImage: (image) => ["image", "exists", image],
  reach: null,
  install: "apt-get install podman",
};

const docker: ContainerEngine = {
  program: "docker",
  start: (manifest, input) => dockerRun(manifest, input),
  ...follow,
  remove: ({ worker }) => ["rm", "-f", "-v", worker],
  listRun: (run) => ["ps", "-a", "-q", "--filter", `label=pitroom.run=${run}`],
  removeListed: (ids) => ["rm", "-f", "-v", ...ids],
  hasImage: (image) => ["image", "inspect", "--format", "{{.Id}}", image],
  reach: {
    args: ["info", "--format", "{{.ServerVersion}}"],
    hint: "systemctl start docker (or run dockerd)",
  },
  install: "apt-get install docker.io",
};

/** The engine of a local container host (a cluster's is not one: cluster.ts). */
export function engineOf(host: ContainerHost): ContainerEngine {
  if (host.engine === "kubernetes") {
    throw new TypeError(`Host "${host.name}" runs on a cluster, not a local engine`);
  }
  return host.engine === "docker" ? docker : podman;
}

/** Runs the host's engine (`podman ...`, `docker ...`) with Pitroom's environment and `env`. */
export function engineCall(
  sys: HeldSys,
  host: ContainerHost,
  args: string[],
  env: Record<string, string> = {},
) {
  return sys.runner.run([engineOf(host).program, ...args], {
    env: { ...sys.env.toObject(), ...env },
    stdin: { kind: "null" },
  });
}

/** The line of an engine's error output that says why (not docker's "See '... --help'."). */
export function engineReason(text: string): string {
  const lines = text.trim().split("\n").map((l) => l.trim());
  return lines.filter((l) => l !== "" && !/^See '.*--help'\.?$/.test(l)).at(-1) ?? "";
}

/** A `--mount` field list, each field quoted as CSV where it must be (docker reads it as CSV). */
function mountFlag(fields: string[]): string {
  return fields.map((f) => /[",\s]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f).join(",");
}

/** Longer values, or ones with line breaks, cannot go in an `--env-file`. */
const ENV_FILE_MAX = 16 * 1024;

/**
 * The `docker run` of a manifest's one container (pure): detached, named, labelled, the
 * manifest's volumes as bind mounts at their paths (read-only where it says), its environment
 * in an env file (what a line cannot hold through the client's own environment, never on the
 * command line), its folder, command and network, and Pitroom's seccomp profile (seccomp.ts).
 */
export function dockerRun(manifest: PodManifest, input: StartInput): StartCall {
  const spec = manifest.spec;
  const [container] = spec.containers;
  const args = ["run", "-d", "--name", input.names.worker];
  for (const [key, value] of Object.entries({ ...manifest.metadata.labels, ...input.labels })) {
    args.push("--label", `${key}=${value}`);
  }
  args.push("--network", spec.hostNetwork === true ? "host" : "none");
  args.push("--user", input.user, "--workdir", container.workingDir);
  // Docker's default seccomp profile refuses the user namespace a worker CLI's own sandbox
  // (codex's bubblewrap) makes inside, which failed every command the worker ran (podman's
  // allows it); Pitroom's allows it and refuses what a worker never needs (seccomp.ts). The
  // client reads the file. The container keeps docker's dropped capabilities and masked /proc.
  args.push("--security-opt", `seccomp=${input.seccompFile}`);
  const volumes = new Map(spec.volumes.map((v) => [v.name, v.hostPath.path]));
  for (const mount of container.volumeMounts) {
    const from = volumes.get(mount.name);
    if (from === undefined) throw new TypeError(`The manifest has no volume "${mount.name}"`);
    const fields = ["type=bind", `source=${from}`, `target=${mount.mountPath}`];
    args.push("--mount", mountFlag(mount.readOnly === true ? [...fields, "readonly"] : fields));
  }
  const lines: string[] = [];
  const env: Record<string, string> = {};
  for (const { name, value } of container.env) {
    if (/[\r\n]/.test(value) || value.length > ENV_FILE_MAX) {
      args.push("--env", name);
      env[name] = value;
    } else lines.push(`${name}=${value}`);
  }
  args.push("--env-file", input.envFile);
  const [entry, ...rest] = container.command;
  args.push("--entrypoint", entry ?? "", container.image, ...rest, ...(container.args ?? []));
  return {
    args,
    env,
    files: [
      { path: input.envFile, text: lines.join("\n") + (lines.length ? "\n" : "") },
      { path: input.seccompFile, text: seccompText() },
    ],
  };
}
