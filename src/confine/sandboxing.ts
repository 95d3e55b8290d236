/**
 * The sandbox of one attempt (src/confine/sandbox/): the config's setting, the launch wrapped, and what
 * the report should say. An isolate run without a sandbox whose copy holds links leading
 * out of it is refused (exit 3) unless the run allows links; then the links are named.
 */
import { loadConfig } from "../store/config.ts";
import { RefusedError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import {
  detectSandbox,
  escapingLinks,
  sandboxLaunch,
  sandboxSetting,
  type SandboxUse,
  treeRoot,
} from "./sandbox/mod.ts";
import type { Launch, Mode } from "../workers/types.ts";

/** Wraps one attempt's launch in the sandbox the config asks for, with what the report says. */
export async function sandboxAttempt(
  sys: Sys,
  launch: Launch,
  input: {
    mode: Mode;
    privateDir: string;
    isolation?: { links: readonly string[]; allowLinks: boolean };
  },
): Promise<{ launch: Launch; use: SandboxUse; notes: string[] }> {
  const { config } = await loadConfig(sys.configPath);
  const { setting } = sandboxSetting(config.sandbox);
  const wrapped = await sandboxLaunch(sys, launch, {
    mode: input.mode,
    privateDir: input.privateDir,
    setting,
  });
  const notes: string[] = [];
  if (wrapped.use.kind !== "none") return { ...wrapped, notes };
  notes.push(`The worker ran without a sandbox: ${wrapped.use.reason}`);
  if (input.isolation !== undefined) {
    const { root } = await treeRoot(launch.cwd);
    const links = await escapingLinks(root, { known: input.isolation.links });
    if (links.length > 0) {
      const named = links.slice(0, 5).map((l) => `${l.path} -> ${l.target}`).join(", ");
      const more = links.length > 5 ? ` and ${links.length - 5} more` : "";
      if (!input.isolation.allowLinks) {
        throw new RefusedError(
          "links_leave_copy",
          `Cannot isolate the worker without a sandbox: the copy holds links leading out of it: ${named}${more}`,
          { hint: "pitroom run -i --allow-links ..." },
        );
      }
      notes.push(`Links in the copy lead out of it (no sandbox holds them): ${named}${more}`);
    }
  }
  return { ...wrapped, notes };
}

/** What `doctor` says about the sandbox: which one runs workers, or a warning (`required`: error). */
export async function sandboxCheck(
  sys: Sys,
): Promise<{ status: "ok" | "warn" | "error"; message: string; hint?: string }> {
  const { config } = await loadConfig(sys.configPath);
  const { setting } = sandboxSetting(config.sandbox);
  if (setting.mode === "off") {
    return {
      status: "warn",
      message: `workers run without a sandbox: "sandbox" is "off" in the config`,
      hint: `set "sandbox": "auto" in ${sys.configPath}`,
    };
  }
  const found = await detectSandbox(sys);
  if (found.kind !== "none") {
    return { status: "ok", message: `workers run in ${found.kind} (${found.binary})` };
  }
  return {
    status: setting.mode === "required" ? "error" : "warn",
    message: `workers run without a sandbox: ${found.reason}` +
      (setting.mode === "required" ? ` ("sandbox" is "required": runs are refused)` : ""),
    hint: "apt-get install bubblewrap",
  };
}
