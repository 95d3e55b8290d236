/**
 * The bubblewrap command line of a plan (pure): the whole file system read-only, fresh `/dev`
 * and `/proc`, the private temp folder as `/tmp` with what the launch names there shown again
 * read-only, the plan's writable folders bound read-write and its read-only ones over them,
 * every capability dropped (so root inside cannot remount or unmount what the sandbox set up),
 * and the worker with everything it starts in a PID namespace of its own that dies with the
 * sandbox and with the sandbox's parent. The network is left as it is.
 */
import { HIDDEN_TMP, type SandboxPlan } from "./plan.ts";

/** Options of `bwrapArgv`. */
export interface BwrapOptions {
  /** @default "bwrap" */
  binary?: string;
  /**
   * Pitroom runs as root: the sandbox keeps CAP_SETFCAP, without which a bubblewrap inside it
   * (codex's own sandbox) cannot map user 0 into its namespace.
   * @default false
   */
  asRoot?: boolean;
}

/** The argv that runs `argv` inside the plan's sandbox. */
export function bwrapArgv(
  plan: SandboxPlan,
  argv: readonly string[],
  options: BwrapOptions = {},
): string[] {
  const out = [
    options.binary ?? "bwrap",
    "--die-with-parent",
    "--unshare-pid",
    "--cap-drop",
    "ALL",
    ...(options.asRoot === true ? ["--cap-add", "CAP_SETFCAP"] : []),
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--bind",
    plan.tmp,
    HIDDEN_TMP,
  ];
  for (const path of plan.visible) out.push("--ro-bind", path, path);
  for (const path of plan.writable) out.push("--bind", path, path);
  for (const path of plan.readOnly) out.push("--ro-bind", path, path);
  out.push("--chdir", plan.cwd, "--", ...argv);
  return out;
}

/** The probe that tells whether bubblewrap can make this sandbox here. */
export function bwrapProbe(binary: string): string[] {
  const plan = { cwd: "/", visible: [], writable: [], readOnly: [], tmp: HIDDEN_TMP };
  return bwrapArgv(plan, ["true"], { binary });
}
