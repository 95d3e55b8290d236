/**
 * The config's `hosts`: where a run's workers may run besides this machine. An SSH host
 * (`{"ssh": "user@box", "dir": "~/pitroom-work"}`, with `port`, `identity`, `options` for more
 * `ssh -o` settings, `pitroom` for the command that starts Pitroom there and `env` for variables
 * the workers there get) or a container (`{"container": {"image": "...", "engine": "podman"}}`).
 * A bad entry is refused in one line naming the key.
 */
import { UsageError } from "../../sys/errors.ts";
import { own } from "../../sys/own.ts";

/** An SSH host. */
export interface SshHost {
  kind: "ssh";
  name: string;
  /** `user@box` or `box` (an ssh config alias works too). */
  ssh: string;
  /** The folder on the host Pitroom works in (`~/` is the remote home). */
  dir: string;
  port?: number;
  /** A private key file (`ssh -i`). */
  identity?: string;
  /** More `ssh -o` settings (`StrictHostKeyChecking=accept-new`). */
  options: string[];
  /** The shell command that starts Pitroom on the host. */
  pitroom: string;
  /** Variables the host's Pitroom (and so its workers) gets: PATH, a provider's base URL. */
  env: Record<string, string>;
}

/** A container host: the worker runs in an OCI container from `image`. */
export interface ContainerHost {
  kind: "container";
  name: string;
  image: string;
  /**
   * `podman` (`kube play` here), `docker` (the manifest's container with `docker run` here), or
   * `kubernetes` (a Job on the current kubeconfig's cluster).
   */
  engine: "podman" | "docker" | "kubernetes";
  /** The cluster's namespace (`kubernetes` only). */
  namespace?: string;
  /** Folders of this machine mounted read-only at the same path (the worker CLIs, /usr). */
  mounts: string[];
  /** `host` (the default): the machine's network; `none`: loopback only. */
  network: "host" | "none";
  env: Record<string, string>;
}

/** A configured host. */
export type HostConfig = SshHost | ContainerHost;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

function bad(name: string, what: string): UsageError {
  return new UsageError(`Host "${name}" in the config's "hosts": ${what}`, {
    hint: 'e.g. "hosts": {"box": {"ssh": "user@box", "dir": "~/pitroom-work"}}',
  });
}

function strings(name: string, key: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw bad(name, `"${key}" should be a list of strings`);
  }
  return value;
}

function envOf(name: string, value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw bad(name, `"env" should be an object of strings`);
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || typeof v !== "string") {
      throw bad(name, `"env.${k}" should be a variable name with a string value`);
    }
    env[k] = v;
  }
  return env;
}

/** Reads host `name` from the config's `hosts` value; refuses a missing or bad entry. */
export function hostConfig(hosts: unknown, name: string): HostConfig {
  if (!NAME.test(name)) throw new UsageError(`Bad host name "${name}"`);
  const entry = typeof hosts === "object" && hosts !== null && !Array.isArray(hosts)
    ? own(hosts as Record<string, unknown>, name)
    : undefined;
  if (entry === undefined) {
    const known = typeof hosts === "object" && hosts !== null ? Object.keys(hosts) : [];
    throw new UsageError(`Unknown host "${name}"`, {
      hint: known.length > 0
        ? `configured hosts: ${known.join(", ")}`
        : 'add it to the config: "hosts": {"box": {"ssh": "user@box", "dir": "~/pitroom-work"}}',
    });
  }
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    throw bad(name, "should be an object");
  }
  const raw = entry as Record<string, unknown>;
  if (raw.ssh !== undefined && raw.container !== undefined) {
    throw bad(name, 'give "ssh" or "container", not both');
  }
  if (raw.container !== undefined) return containerHost(name, raw);
  if (
    typeof raw.ssh !== "string" || !/^[A-Za-z0-9_.@:\[\]-]+$/.test(raw.ssh) ||
    raw.ssh.startsWith("-")
  ) {
    throw bad(name, '"ssh" should be a destination like "user@box"');
  }
  const dir = raw.dir ?? "~/pitroom-work";
  if (typeof dir !== "string" || dir === "" || /[\n\0]/.test(dir)) {
    throw bad(name, '"dir" should be a folder on the host');
  }
  if (
    raw.port !== undefined &&
    (typeof raw.port !== "number" || !Number.isInteger(raw.port) || raw.port < 1 ||
      raw.port > 65535)
  ) {
    throw bad(name, '"port" should be a port number');
  }
  if (raw.identity !== undefined && typeof raw.identity !== "string") {
    throw bad(name, '"identity" should be a key file');
  }
  if (raw.pitroom !== undefined && typeof raw.pitroom !== "string") {
    throw bad(name, '"pitroom" should be the command that starts Pitroom there');
  }
  const options = strings(name, "options", raw.options);
  if (options.some((o) => !/^[A-Za-z]+=/.test(o))) {
    throw bad(name, '"options" should be ssh settings like "StrictHostKeyChecking=accept-new"');
  }
  return {
    kind: "ssh",
    name,
    ssh: raw.ssh,
    dir,
    ...(raw.port === undefined ? {} : { port: raw.port as number }),
    ...(raw.identity === undefined ? {} : { identity: raw.identity as string }),
    options,
    pitroom: (raw.pitroom as string | undefined) ?? "pitroom",
    env: envOf(name, raw.env),
  };
}

function containerHost(name: string, raw: Record<string, unknown>): ContainerHost {
  const c = raw.container;
  if (typeof c !== "object" || c === null || Array.isArray(c)) {
    throw bad(name, '"container" should be an object with an "image"');
  }
  const spec = c as Record<string, unknown>;
  if (typeof spec.image !== "string" || spec.image === "" || /\s/.test(spec.image)) {
    throw bad(name, '"container.image" should be an image name');
  }
  const engine = spec.engine ?? "podman";
  if (engine !== "podman" && engine !== "docker" && engine !== "kubernetes") {
    throw bad(name, '"container.engine" should be "podman", "docker" or "kubernetes"');
  }
  const namespace = spec.namespace;
  if (
    namespace !== undefined &&
    (typeof namespace !== "string" || !/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(namespace))
  ) {
    throw bad(name, '"container.namespace" should be a namespace name');
  }
  const network = spec.network ?? "host";
  if (network !== "host" && network !== "none") {
    throw bad(name, '"container.network" should be "host" or "none"');
  }
  const mounts = strings(name, "container.mounts", spec.mounts);
  if (mounts.some((m) => !m.startsWith("/"))) {
    throw bad(name, '"container.mounts" should be absolute folders');
  }
  return {
    kind: "container",
    name,
    image: spec.image,
    engine,
    ...(namespace === undefined ? {} : { namespace: namespace as string }),
    mounts,
    network,
    env: envOf(name, spec.env ?? raw.env),
  };
}

/** The `ssh` argv that runs `command` (one shell line) on the host, with its settings. */
export function sshArgv(host: SshHost, command: string): string[] {
  const argv = ["ssh", "-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=20"];
  argv.push("-o", "ServerAliveInterval=15");
  argv.push("-o", "ServerAliveCountMax=3");
  if (host.port !== undefined) argv.push("-p", String(host.port));
  if (host.identity !== undefined) argv.push("-i", host.identity);
  for (const option of host.options) argv.push("-o", option);
  argv.push("--", host.ssh, command);
  return argv;
}

/** A word quoted for a POSIX shell. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A folder for the remote shell: `~/x` keeps its `~` unquoted, so the remote home expands it. */
export function remoteDir(dir: string): string {
  if (dir === "~") return "~";
  if (dir.startsWith("~/")) return `~/${shellQuote(dir.slice(2))}`;
  return shellQuote(dir);
}

/**
 * The shell line that starts the host's Pitroom serving one launch: in the host's folder, with
 * its own state dir there and the host's variables.
 */
export function serveCommand(host: SshHost): string {
  const dir = remoteDir(host.dir);
  // The host's folder holds the state dir: a PITROOM_STATE_DIR of `env` does not move it.
  const env = Object.entries(host.env).filter(([k]) => k !== "PITROOM_STATE_DIR")
    .map(([k, v]) => `${k}=${shellQuote(v)}`);
  return `mkdir -p ${dir} && cd ${dir} && exec env ${
    env.join(" ")
  } PITROOM_STATE_DIR="$PWD/state" ${host.pitroom} host serve`;
}
