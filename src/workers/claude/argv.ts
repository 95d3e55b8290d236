/**
 * The claude launch: `claude -p --output-format stream-json --verbose` with the prompt on stdin
 * (claude -p reads its prompt from stdin when no prompt argument is given; stdin is then closed),
 * and one permission profile per mode, made of `--tools` (what the model is offered at all),
 * `--permission-mode` and allow/deny rules. Never a bypass mode: no `bypassPermissions`, no
 * `--dangerously-skip-permissions`. Nobody answers a permission prompt: `--permission-prompts
 * none` (claude 2.1.328 `--help`: "anything that would prompt is denied automatically; the
 * permission mode still decides everything else") turns every ask (a user's or project's `ask`
 * rule, a write to a protected path such as `.claude/` or `.git/`, an edit outside the working
 * directory) into a denial, reported as `permission_denied`, instead of leaving it to a host.
 */
import { MODES } from "../modes.ts";
import type { Launch, Mode, RunSpec } from "../types.ts";
import { deniedCommandPrefixes } from "../../confine/floor.ts";

/** Tools a read-only worker gets: read and search, plus a shell limited to read-only commands. */
export const READ_TOOLS = ["Read", "Grep", "Glob", "Bash"] as const;
/** Tools a writing worker gets. */
export const WRITE_TOOLS = [
  "Read",
  "Grep",
  "Glob",
  "Edit",
  "Write",
  "NotebookEdit",
  "Bash",
] as const;
/** Web tools, only with `web`. */
export const WEB_TOOLS = ["WebFetch", "WebSearch"] as const;

/**
 * Shell commands a read-only worker may run without asking (`dontAsk` denies every other
 * command). No `find` (it has `-delete` and `-exec`), no `sed` (`-i`).
 */
export const READ_ONLY_SHELL = [
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "grep",
  "rg",
  "tree",
  "file",
  "stat",
  "pwd",
  "git status",
  "git log",
  "git diff",
  "git show",
  "git blame",
  "git grep",
  "git ls-files",
  "git rev-parse",
] as const;

/** Shell commands a writing worker is denied: the fixed floor (policy/floor.ts). */
export const DENIED_SHELL: readonly string[] = deniedCommandPrefixes();

/** A claude permission rule for a shell command prefix: `Bash(git log:*)`. */
export function shellRule(prefix: string): string {
  return `Bash(${prefix}:*)`;
}

/** Who answers a permission prompt: nobody (every ask is denied at once). */
export const NO_PROMPTS = ["--permission-prompts", "none"] as const;

/** The permission flags of a mode. */
export function profileArgs(mode: Mode, web: boolean): string[] {
  const webTools = web ? [...WEB_TOOLS] : [];
  if (!MODES[mode].edits) {
    return [
      ...NO_PROMPTS,
      "--tools",
      [...READ_TOOLS, ...webTools].join(","),
      // dontAsk: whatever is not allowed below is denied, reported as `permission_denied`.
      "--permission-mode",
      "dontAsk",
      "--allowedTools",
      ...webTools,
      ...READ_ONLY_SHELL.map(shellRule),
    ];
  }
  // write and isolate: edits in place; the shell is allowed but the rules below deny
  // history-changing and destructive commands (deny rules win over allow rules).
  return [
    ...NO_PROMPTS,
    "--tools",
    [...WRITE_TOOLS, ...webTools].join(","),
    "--permission-mode",
    "acceptEdits",
    "--allowedTools",
    "Bash",
    ...webTools,
    "--disallowedTools",
    ...DENIED_SHELL.map(shellRule),
  ];
}

/** Flag settings (above the user's and the project's) that turn claude's own sandbox off. */
export const NESTED_SANDBOX_OFF = JSON.stringify({ sandbox: { enabled: false } });

/** The argv of one claude attempt (the prompt is not in it: it goes to stdin). */
export function claudeArgv(spec: RunSpec, binary = "claude"): string[] {
  const argv = [binary, "-p", "--output-format", "stream-json", "--verbose"];
  if (spec.model !== undefined) argv.push("--model", spec.model);
  if (spec.effort !== undefined) argv.push("--effort", spec.effort);
  if (spec.sessionId !== undefined) argv.push("--resume", spec.sessionId);
  argv.push(...profileArgs(spec.mode, spec.web));
  return argv;
}

/**
 * Describes the launch. The user's own claude config dir (their login) is kept: the env is the
 * scrubbed base env with the guard shim first on PATH, and claude's temp files go into the
 * attempt's private dir.
 */
export function claudeLaunch(spec: RunSpec): Launch {
  const env = { ...spec.baseEnv };
  if (spec.pathPrefix !== undefined && spec.pathPrefix.length > 0) {
    env.PATH = [...spec.pathPrefix, env.PATH ?? ""].filter((part) => part !== "").join(":");
  }
  env.CLAUDE_CODE_TMPDIR = `${spec.privateDir}/tmp`;
  const argv = claudeArgv(spec);
  return {
    argv,
    // In Pitroom's sandbox, claude's own (a user's `sandbox.enabled`) is turned off: nested, it
    // fails its first shell command and runs the rest unsandboxed (docs/security.md, "The sandbox").
    inSandbox: [argv[0]!, "--settings", NESTED_SANDBOX_OFF, ...argv.slice(1)],
    env,
    cwd: spec.cwd,
    files: [{ path: `${spec.privateDir}/tmp/.keep`, content: "" }],
    stdin: spec.prompt,
    state: claudeState(spec.baseEnv),
  };
}

/** Claude's own folder (`CLAUDE_CONFIG_DIR`, else `~/.claude`): sessions, settings, logs. */
export function claudeState(env: Record<string, string>): string[] {
  if (env.CLAUDE_CONFIG_DIR) return [env.CLAUDE_CONFIG_DIR];
  return env.HOME ? [`${env.HOME}/.claude`] : [];
}
