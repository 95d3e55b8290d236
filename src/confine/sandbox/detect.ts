/**
 * Which sandbox this machine offers: bubblewrap on Linux (found on PATH and probed once per
 * process, since a container may forbid the namespaces it needs), sandbox-exec on macOS, or
 * none with the reason.
 */
import type { Sys } from "../../sys/mod.ts";
import { findOnPath } from "../../workers/_detect.ts";
import { join } from "../../sys/path.ts";
import { bwrapArgv, bwrapProbe, probePlan } from "./bwrap.ts";
import { networkArgv, networkBwrapOptions } from "./network.ts";

/** A sandbox mechanism that works here, or why there is none. */
export type SandboxKind =
  | { kind: "bwrap"; binary: string }
  | { kind: "sandbox-exec"; binary: string }
  | { kind: "none"; reason: string };

/**
 * Each probe's answer, once per process, kept from the moment it is asked for: the runs a host
 * starts together (a crew) share one probe instead of each starting its own (a crew of 10 spawned
 * 10). A probe that could not run at all is asked again next time.
 */
const probed = new Map<string, Promise<SandboxKind>>();

function once<T>(kept: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  const known = kept.get(key);
  if (known !== undefined) return known;
  const made = make();
  kept.set(key, made);
  made.catch(() => {
    if (kept.get(key) === made) kept.delete(key);
  });
  return made;
}

/** Finds the sandbox of this machine (`os` is `Deno.build.os` unless told). */
export async function detectSandbox(
  sys: Pick<Sys, "runner" | "env">,
  options: { os?: string } = {},
): Promise<SandboxKind> {
  const os = options.os ?? Deno.build.os;
  const env = sys.env.toObject();
  if (os === "darwin") {
    const binary = findOnPath("/usr/bin/sandbox-exec", env);
    return binary === null
      ? { kind: "none", reason: "sandbox-exec is missing" }
      : { kind: "sandbox-exec", binary };
  }
  if (os !== "linux") return { kind: "none", reason: `no sandbox is known on ${os}` };
  const binary = findOnPath("bwrap", env);
  if (binary === null) {
    return { kind: "none", reason: "bubblewrap (bwrap) is not installed" };
  }
  return await once(probed, binary, async (): Promise<SandboxKind> => {
    const out = await sys.runner.run(bwrapProbe(binary), { stdin: { kind: "null" } });
    return out.code === 0 ? { kind: "bwrap", binary } : {
      kind: "none",
      reason: `bubblewrap cannot make a sandbox here: ${
        out.stderr.trim().split("\n").at(-1) || `exit ${out.code}`
      }`,
    };
  });
}

/** The programs of an isolated network that work here, or why there are none. */
export type NetworkKind =
  | { kind: "pasta"; binary: string; setpriv: string | null }
  | { kind: "none"; reason: string };

const networks = new Map<string, Promise<NetworkKind>>();

/**
 * Finds pasta and probes it once per process: a sandbox with a network of its own that pasta
 * attaches to (pasta refuses where the host has no routable interface, a loopback-only
 * namespace for one).
 */
export async function detectNetwork(
  sys: Pick<Sys, "runner" | "env">,
  bwrap: string,
): Promise<NetworkKind> {
  const env = sys.env.toObject();
  const binary = findOnPath("pasta", env);
  if (binary === null) {
    return { kind: "none", reason: "pasta (Debian's passt package) is not installed" };
  }
  const key = `${bwrap}\0${binary}`;
  return await once(networks, key, () => probeNetwork(sys, bwrap, binary, env));
}

async function probeNetwork(
  sys: Pick<Sys, "runner" | "env">,
  bwrap: string,
  binary: string,
  env: Record<string, string>,
): Promise<NetworkKind> {
  const setpriv = findOnPath("setpriv", env);
  const dir = await Deno.makeTempDir({ prefix: "pitroom-net-probe-" });
  try {
    const plan = probePlan();
    const asRoot = Deno.uid() === 0;
    const extra = networkBwrapOptions({ asRoot, uid: Deno.uid() ?? 0, gid: Deno.gid() ?? 0 });
    const inner = bwrapArgv(plan, ["true"], { binary: bwrap, asRoot, extra });
    const argv = networkArgv(inner, { dir, ports: [], pasta: binary, setpriv, asRoot });
    const out = await sys.runner.run(argv, { stdin: { kind: "null" } });
    const found: NetworkKind = out.code === 0 ? { kind: "pasta", binary, setpriv } : {
      kind: "none",
      reason: `pasta cannot connect a sandbox here: ${
        out.stderr.trim().split("\n").at(-1)?.replace(/^pitroom: /, "") || `exit ${out.code}`
      }`,
    };
    return found;
  } finally {
    await Deno.remove(join(dir), { recursive: true });
  }
}
