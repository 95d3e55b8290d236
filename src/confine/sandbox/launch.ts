/**
 * Wraps a described launch in this machine's sandbox: the argv (the launch's `inSandbox` one
 * when it has one) gains the bubblewrap (or sandbox-exec) prefix, the environment a private `TMPDIR`. Without a sandbox the launch runs as
 * it is and the caller is told why, unless the setting is `required`, which refuses (exit 3).
 */
import { join } from "../../sys/path.ts";
import type { Sys } from "../../sys/mod.ts";
import { RefusedError } from "../../sys/errors.ts";
import type { Launch, Mode } from "../../workers/types.ts";
import { bwrapArgv } from "./bwrap.ts";
import { detectSandbox } from "./detect.ts";
import { planSandbox } from "./plan.ts";
import { sandboxExecArgv } from "./seatbelt.ts";
import type { SandboxSetting } from "./settings.ts";
import { writableFolders } from "./writable.ts";

/** How a launch runs: in which sandbox, or without one and why. */
export type SandboxUse =
  | { kind: "bwrap" | "sandbox-exec" }
  | { kind: "none"; reason: string };

/** What `sandboxLaunch` needs besides the launch. */
export interface SandboxInput {
  mode: Mode;
  /** The attempt's private folder (writable; its `tmp/` becomes `TMPDIR`). */
  privateDir: string;
  setting: SandboxSetting;
}

/** The launch to run, and how it is sandboxed. */
export async function sandboxLaunch(
  sys: Pick<Sys, "runner" | "env">,
  launch: Launch,
  input: SandboxInput,
): Promise<{ launch: Launch; use: SandboxUse }> {
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
    argv: launch.argv,
  });
  const inner = launch.inSandbox ?? launch.argv;
  const argv = found.kind === "bwrap"
    ? bwrapArgv(plan, inner, { binary: found.binary, asRoot: Deno.uid() === 0 })
    : sandboxExecArgv(plan, inner, found.binary);
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
    use: { kind: found.kind },
  };
}
