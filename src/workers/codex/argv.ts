/**
 * The codex launch: `codex exec --json` with a sandbox per mode, the prompt on stdin (`-` as the
 * prompt argument, then stdin is closed), and per-run settings as `-c` overrides so the user's
 * own `CODEX_HOME` (which holds their login) is used as it is and never written.
 *
 * Permission profiles, as codex 0.169.0 can enforce them:
 * - read: `-s read-only`. The shell stays, because the sandbox itself enforces read-only (writes
 *   fail with "Read-only file system", network connects with EPERM) and `apply_patch` is
 *   rejected; web search is off unless `web`.
 * - write / isolate: `-s workspace-write` (edits in the cwd; `.git` stays read-only inside the
 *   sandbox, so commit/reset/checkout/stash/tag/branch -D fail; no network unless `web`).
 *   Codex's own deny rules (execpolicy `.rules` files) load only from `$CODEX_HOME/rules` or the
 *   repo's `.codex/`, both of which Pitroom must not write, so no extra rules are passed: the
 *   sandbox and the guard shim on PATH are the guards.
 * Nothing can stall on a question: `-c approval_policy="never"` (codex's config key; `exec`
 * defaults to it, and the override also replaces a user's value that `exec` refuses, such as the
 * retired "untrusted") makes codex reject at once every call that would need an approval (a
 * sandbox escalation, a prompt rule, an MCP elicitation) and hand the model the refusal ("approval
 * policy is Never; reject command"). No bypass flag is ever given.
 */
import { MODES } from "../modes.ts";
import type { Launch, RunSpec } from "../types.ts";

/** The sandbox a mode runs under. */
export function sandboxFor(mode: RunSpec["mode"]): "read-only" | "workspace-write" {
  return MODES[mode].edits ? "workspace-write" : "read-only";
}

/** TOML string literal for a `-c key=value` override. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

/** The argv of one codex attempt (without the prompt, which goes to stdin). */
export function codexArgv(spec: RunSpec): string[] {
  const argv = [
    "codex",
    "exec",
    "--json",
    "-s",
    sandboxFor(spec.mode),
    "--skip-git-repo-check",
    "-C",
    spec.cwd,
    "-c",
    `approval_policy=${tomlString("never")}`,
    "-c",
    "check_for_update_on_startup=false",
    "-c",
    "analytics.enabled=false",
    // The shell tool runs `bash -c`, not `bash -lc`: a login profile resets PATH and would drop
    // the guard's shims from the head of it (policy/floor.ts).
    "-c",
    "allow_login_shell=false",
    "-c",
    `web_search=${tomlString(spec.web ? "live" : "disabled")}`,
  ];
  if (spec.web && MODES[spec.mode].edits) {
    argv.push("-c", "sandbox_workspace_write.network_access=true");
  }
  if (spec.model !== undefined) argv.push("-m", spec.model);
  if (spec.effort !== undefined) {
    argv.push("-c", `model_reasoning_effort=${tomlString(spec.effort)}`);
  }
  // `resume` takes no sandbox/cwd flags of its own: they go before it. The model is not taken
  // from the session, so `-m` above is passed again on a follow-up.
  if (spec.sessionId !== undefined) argv.push("resume", spec.sessionId);
  argv.push("-");
  return argv;
}

/** The environment: the scrubbed base env with the guard shim first on PATH. */
export function codexEnv(spec: RunSpec): Record<string, string> {
  const env = { ...spec.baseEnv };
  if (spec.pathPrefix !== undefined && spec.pathPrefix.length > 0) {
    env.PATH = [...spec.pathPrefix, env.PATH ?? ""].filter((part) => part !== "").join(":");
  }
  return env;
}

/** Describes one codex launch: the prompt on stdin, no files (config goes through `-c`). */
export function codexLaunch(spec: RunSpec): Launch {
  return {
    argv: codexArgv(spec),
    env: codexEnv(spec),
    cwd: spec.cwd,
    files: [],
    stdin: spec.prompt,
    state: codexState(spec.baseEnv),
    startAlone: "codex",
  };
}

/** Codex's own folder (`CODEX_HOME`, else `~/.codex`): sessions, logs, its state database. */
export function codexState(env: Record<string, string>): string[] {
  const home = env.CODEX_HOME ?? (env.HOME ? `${env.HOME}/.codex` : undefined);
  return home === undefined ? [] : [home];
}
