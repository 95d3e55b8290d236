/**
 * Which sandbox this machine offers: bubblewrap on Linux (found on PATH and probed once per
 * process, since a container may forbid the namespaces it needs), sandbox-exec on macOS, or
 * none with the reason.
 */
import type { Sys } from "../../sys/mod.ts";
import { findOnPath } from "../../workers/_detect.ts";
import { bwrapProbe } from "./bwrap.ts";

/** A sandbox mechanism that works here, or why there is none. */
export type SandboxKind =
  | { kind: "bwrap"; binary: string }
  | { kind: "sandbox-exec"; binary: string }
  | { kind: "none"; reason: string };

const probed = new Map<string, SandboxKind>();

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
  const known = probed.get(binary);
  if (known !== undefined) return known;
  const out = await sys.runner.run(bwrapProbe(binary), { stdin: { kind: "null" } });
  const found: SandboxKind = out.code === 0 ? { kind: "bwrap", binary } : {
    kind: "none",
    reason: `bubblewrap cannot make a sandbox here: ${
      out.stderr.trim().split("\n").at(-1) || `exit ${out.code}`
    }`,
  };
  probed.set(binary, found);
  return found;
}
