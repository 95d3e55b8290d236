/**
 * Wraps a described launch in this machine's sandbox: the argv (the launch's `inSandbox` one
 * when it has one) gains the bubblewrap (or sandbox-exec) prefix, the environment a private
 * `TMPDIR`; the paths the caller names are hidden (plan.ts). With `"network": "isolated"` the
 * worker gets a network of its own (network.ts), with the loopback ports its environment and the
 * texts the caller gives (the CLI's config files) name forwarded to the host, and `sandbox.ports`.
 * Without a sandbox the launch runs as it is and the caller is told why, unless the setting is
 * `required`, which refuses (exit 3); an isolated network that cannot be made refuses too.
 */
import { join } from "../../sys/path.ts";
import type { Sys } from "../../sys/mod.ts";
import { RefusedError } from "../../sys/errors.ts";
import type { Launch, Mode } from "../../workers/types.ts";
import { bwrapArgv } from "./bwrap.ts";
import { detectNetwork, detectSandbox } from "./detect.ts";
import { envTexts, loopbackPorts, networkArgv, networkBwrapOptions } from "./network.ts";
import { hiddenHolder, planSandbox, type SandboxPlan } from "./plan.ts";
import { realOrNull } from "./paths.ts";
import { programOnPath } from "./tmp.ts";
import { sandboxExecArgv } from "./seatbelt.ts";
import type { SandboxSetting } from "./settings.ts";
import { writableFolders } from "./writable.ts";

/** How a launch runs: in which sandbox, or without one and why. */
export type SandboxUse =
  | { kind: "bwrap" | "sandbox-exec"; network?: { ports: number[] } }
  | { kind: "none"; reason: string };

/** What `sandboxLaunch` needs besides the launch. */
export interface SandboxInput {
  mode: Mode;
  /** The attempt's private folder (writable; its `tmp/` becomes `TMPDIR`). */
  privateDir: string;
  setting: SandboxSetting;
  /**
   * Absolute paths the launch must not see (files or folders).
   * @default none
   */
  hide?: readonly string[];
  /**
   * Absolute paths it sees after all, read-only where they lie inside a hidden folder.
   * @default none
   */
  show?: readonly string[];
  /**
   * Texts that name the loopback ports the launch's configuration uses (the CLI's config files),
   * read besides its environment for an isolated network.
   * @default none
   */
  loopback?: readonly string[];
}

/** The launch to run, and how it is sandboxed. */
export async function sandboxLaunch(
  sys: Pick<Sys, "runner" | "env">,
  launch: Launch,
  input: SandboxInput,
): Promise<{ launch: Launch; use: SandboxUse; plan?: SandboxPlan }> {
  if (input.setting.mode === "off") {
    return { launch, use: { kind: "none", reason: `"sandbox" is "off" in the config` } };
  }
  const found = await detectSandbox(sys);
  if (found.kind === "none") {
    if (input.setting.mode === "required") {
      throw new RefusedError("sandbox_missing", `Cannot sandbox the worker: ${found.reason}`, {
        hint: "apt-get install bubblewrap",
      });
    }
    return { launch, use: found };
  }
  const plan = await planSandbox({
    mode: input.mode,
    cwd: launch.cwd,
    privateDir: input.privateDir,
    state: launch.state ?? [],
    // `/`, the user's home and bad entries never become writable, whoever built the setting.
    extra: (await writableFolders(input.setting.writable, sys.env.get("HOME"))).folders,
    env: launch.env,
    argv: launch.inSandbox ?? launch.argv,
    ...(input.hide === undefined ? {} : { hide: input.hide }),
    ...(input.show === undefined ? {} : { show: input.show }),
  });
  const inner = launch.inSandbox ?? launch.argv;
  await refuseHiddenProgram(plan, inner[0], launch.env.PATH ?? "");
  const asRoot = Deno.uid() === 0;
  let argv: string[];
  let network: { ports: number[] } | undefined;
  if (input.setting.network === "isolated") {
    if (found.kind !== "bwrap") {
      throw new RefusedError(
        "network_isolation_missing",
        `Cannot isolate the worker's network: it needs bubblewrap and pasta, and this is ${found.kind}`,
        { hint: `set "sandbox": {"network": "host"} in the config` },
      );
    }
    const pasta = await detectNetwork(sys, found.binary);
    if (pasta.kind === "none") {
      throw new RefusedError(
        "network_isolation_missing",
        `Cannot isolate the worker's network: ${pasta.reason}`,
        { hint: `apt-get install passt, or set "sandbox": {"network": "host"} in the config` },
      );
    }
    const dir = join(plan.tmp, "..", ".net");
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const ports = [
      ...new Set([
        ...loopbackPorts([...envTexts(launch.env), ...(input.loopback ?? [])]),
        ...input.setting.ports,
      ]),
    ].sort((a, b) => a - b);
    network = { ports };
    const bwrap = bwrapArgv(plan, inner, {
      binary: found.binary,
      asRoot,
      extra: networkBwrapOptions({ asRoot, uid: Deno.uid() ?? 0, gid: Deno.gid() ?? 0 }),
    });
    argv = networkArgv(bwrap, { dir, ports, pasta: pasta.binary, setpriv: pasta.setpriv, asRoot });
  } else {
    argv = found.kind === "bwrap"
      ? bwrapArgv(plan, inner, { binary: found.binary, asRoot })
      : sandboxExecArgv(plan, inner, found.binary);
  }
  return {
    launch: {
      ...launch,
      argv,
      env: {
        ...launch.env,
        TMPDIR: plan.tmp,
        TMP: plan.tmp,
        TEMP: plan.tmp,
        // Node keeps its compile cache in the temp folder unless told: a fresh private one each
        // run would cost claude and gemini ~200 ms of start-up.
        ...(plan.cache === undefined || launch.env.NODE_COMPILE_CACHE !== undefined
          ? {}
          : { NODE_COMPILE_CACHE: join(plan.cache, "node-compile-cache") }),
      },
    },
    use: { kind: found.kind, ...(network === undefined ? {} : { network }) },
    plan,
  };
}

/**
 * Refuses (exit 3) a launch whose program lies in a folder the sandbox hides (a CLI installed in
 * the state dir or under a credential folder): it could not start, and bubblewrap would only say
 * `execvp: No such file or directory`.
 */
async function refuseHiddenProgram(
  plan: SandboxPlan,
  program: string | undefined,
  path: string,
): Promise<void> {
  if (program === undefined) return;
  const found = programOnPath(program, path);
  const real = found === null ? null : await realOrNull(found);
  const holder = real === null ? null : hiddenHolder(plan, real);
  if (holder === null) return;
  throw new RefusedError(
    "program_hidden",
    `Cannot start "${program}" in the sandbox: its executable ${real} is in ${holder}, which the sandbox hides from workers`,
    { hint: `install it elsewhere, or add "${holder}" to "sandbox.show" in the config` },
  );
}
