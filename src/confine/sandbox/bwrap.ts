/**
 * The bubblewrap command line of a plan (pure): the whole file system read-only, fresh `/dev`
 * and `/proc`, the private temp folder as `/tmp`, then the plan's mounts parents first (plan.ts:
 * what the launch names under `/tmp` shown again read-only, its writable folders, the read-only
 * ones over them, hidden folders replaced by an empty tmpfs and hidden files by an empty
 * read-only file, and what must stay visible inside a hidden folder bound again over it), every
 * capability dropped (so root inside cannot remount or unmount what the sandbox set up), and the
 * worker with everything it starts in a PID namespace of its own that dies with the sandbox and
 * with the sandbox's parent. The network is the host's unless the caller adds its own options
 * (network.ts).
 */
import { planMounts, type SandboxPlan } from "./plan.ts";
import { HIDDEN_TMP } from "./tmp.ts";

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
  /**
   * More options before the mounts (`--unshare-net` and its synchronisation: network.ts).
   * @default none
   */
  extra?: readonly string[];
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
    ...(options.extra ?? []),
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
  for (const mount of planMounts(plan)) {
    if (mount.kind === "mask") out.push("--ro-bind", mount.source, mount.path);
    else if (mount.kind === "rw") out.push("--bind", mount.path, mount.path);
    else if (mount.kind === "ro" || mount.kind === "visible") {
      out.push("--ro-bind", mount.path, mount.path);
    } else out.push("--tmpfs", mount.path);
  }
  out.push("--chdir", plan.cwd, "--", ...argv);
  return out;
}

/** The plan of a probe: nothing visible, writable or hidden beyond the sandbox's own tmp. */
export function probePlan(): SandboxPlan {
  return {
    cwd: "/",
    visible: [],
    writable: [],
    readOnly: [],
    hidden: [],
    masked: [],
    empty: "/dev/null",
    tmp: HIDDEN_TMP,
  };
}

/** The probe that tells whether bubblewrap can make this sandbox here. */
export function bwrapProbe(binary: string): string[] {
  return bwrapArgv(probePlan(), ["true"], { binary });
}
