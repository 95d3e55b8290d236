/**
 * The Qwen Code launch: `qwen --output-format stream-json --approval-mode MODE` with the prompt on
 * stdin (qwen 0.24.4 runs headless when stdin is not a terminal and no prompt is given, and takes
 * the piped text as the prompt), then stdin closed.
 *
 * Permissions travel as flags, so the user's own settings files stay untouched:
 * - read: `--approval-mode default`, which headless turns into a denial for every call that would
 *   ask; edits, writes, the shell, sub-agents and (unless `web`) web tools are also named in
 *   `--exclude-tools`, which qwen reports as "permission was declined. Matching deny rule".
 * - write / isolate: `--approval-mode auto-edit` (edits in place), `--allowed-tools
 *   run_shell_command` (the shell without asking) and `--exclude-tools run_shell_command(PREFIX)`
 *   rules for the floor's history-changing and destructive commands ("denied by permission
 *   rules"), sub-agents and web tools as in read.
 * Never `yolo`, never `auto` (its approvals come from an extra model call of qwen's classifier).
 *
 * What flags cannot say goes into a private system settings file (`QWEN_CODE_SYSTEM_SETTINGS_PATH`,
 * the layer above the user's and the project's): the system file the user has (if any) with
 * qwen's managed auto-memory and its "dream" turned off (after every answer qwen 0.24.4 otherwise
 * runs a memory agent, one more model call with write and shell tools, before it exits), no
 * `systemd-inhibit` child, and the effort as `model.reasoningEffort`.
 */
import { delimiter, dirname, join } from "../../sys/path.ts";
import { MODES } from "../modes.ts";
import type { Launch, LaunchFile, Mode, RunSpec } from "../types.ts";
import { deniedCommandPrefixes } from "../../confine/floor.ts";
import { type ReadUserFile, readUserFile, stripJsonComments } from "../gemini/effort.ts";

/** Tools that change files. */
export const EDIT_TOOLS: readonly string[] = ["edit", "write_file", "notebook_edit"];
/** The shell tool. */
export const SHELL_TOOL = "run_shell_command";
/** Tools that reach the web. */
export const WEB_TOOLS: readonly string[] = ["web_fetch", "web_search"];
/** Tools that start other agents (which would hold their own permissions) or leave the tree. */
export const AGENT_TOOLS: readonly string[] = [
  "agent",
  "send_message",
  "enter_worktree",
  "cron_create",
];

/** Efforts qwen's `model.reasoningEffort` setting takes. */
export const QWEN_EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;

/** Approval mode of a run mode. */
export function approvalMode(mode: Mode): "default" | "auto-edit" {
  return MODES[mode].edits ? "auto-edit" : "default";
}

/**
 * The deny rule of a shell command prefix. qwen matches a rule's command as a prefix of the
 * command's words: `run_shell_command(git commit)` also denies `git commit -m x` (recorded in
 * tests/workers/qwen/testdata/shell_floor).
 */
export function shellRule(prefix: string): string {
  return `${SHELL_TOOL}(${prefix})`;
}

/** The `--exclude-tools` entries of a run mode, one rule each. */
export function excludedTools(mode: Mode, web: boolean): string[] {
  const out = [...AGENT_TOOLS];
  if (!web) out.push(...WEB_TOOLS);
  if (!MODES[mode].edits) out.push(...EDIT_TOOLS, SHELL_TOOL);
  else out.push(...deniedCommandPrefixes().map(shellRule));
  return out;
}

/** Environment variables Pitroom removes: qwen would retry a 429 forever under it. */
export const DROPPED_ENV: readonly string[] = ["QWEN_CODE_UNATTENDED_RETRY"];

/**
 * Environment settings of every launch: one node process fewer (no relaunch for a bigger heap),
 * no colour, and team memory (a memory folder qwen commits and pushes) off whatever the settings
 * say.
 */
export const QUIET_ENV: Readonly<Record<string, string>> = {
  QWEN_CODE_NO_RELAUNCH: "true",
  QWEN_CODE_MEMORY_TEAM: "0",
  QWEN_CODE_MEMORY_TEAM_SYNC: "0",
  NO_COLOR: "1",
};

/** The argv of one attempt (the prompt is never in it). */
export function qwenArgv(spec: Pick<RunSpec, "mode" | "model" | "sessionId" | "web">): string[] {
  const argv = [
    "qwen",
    "--output-format",
    "stream-json",
    "--approval-mode",
    approvalMode(spec.mode),
  ];
  if (MODES[spec.mode].edits) argv.push("--allowed-tools", SHELL_TOOL);
  for (const rule of excludedTools(spec.mode, spec.web)) argv.push("--exclude-tools", rule);
  if (spec.model !== undefined) argv.push("-m", spec.model);
  if (spec.sessionId !== undefined) argv.push("--resume", spec.sessionId);
  return argv;
}

/** Where qwen 0.24.4 reads its system settings on this platform (without the env override). */
export function systemSettingsPath(platform: string = Deno.build.os): string {
  if (platform === "darwin") return "/Library/Application Support/QwenCode/settings.json";
  if (platform === "windows") return "C:\\ProgramData\\qwen-code\\settings.json";
  return "/etc/qwen-code/settings.json";
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}

/**
 * The system settings of an attempt: `existing` (the system file's text, null when there is
 * none) with Pitroom's settings laid over; null when `existing` cannot be read as a JSON object
 * (the user's system layer then stays in charge, unchanged).
 */
export function systemSettings(existing: string | null, effort?: string): string | null {
  let base: Record<string, unknown> = {};
  if (existing !== null && existing.trim() !== "") {
    try {
      const parsed: unknown = JSON.parse(stripJsonComments(existing));
      if (asObject(parsed) !== parsed) return null;
      base = parsed as Record<string, unknown>;
    } catch (error) {
      if (error instanceof SyntaxError) return null;
      throw error;
    }
  }
  const settings = {
    ...base,
    memory: {
      ...asObject(base.memory),
      enableManagedAutoMemory: false,
      enableManagedAutoDream: false,
    },
    general: { ...asObject(base.general), preventSystemSleep: false },
    ...(effort === undefined
      ? {}
      : { model: { ...asObject(base.model), reasoningEffort: effort } }),
  };
  return JSON.stringify(settings, null, 2) + "\n";
}

/** Qwen Code's own folder: `$QWEN_HOME`, else `~/.qwen` (settings, sessions, logs, login). */
export function qwenState(env: Record<string, string>): string[] {
  if (env.QWEN_HOME) return [env.QWEN_HOME];
  return env.HOME === undefined ? [] : [join(env.HOME, ".qwen")];
}

/** The file's text, null when there is none, "\0" when it exists but cannot be read. */
function readOrUnreadable(read: ReadUserFile, path: string): string | null {
  try {
    return read(path);
  } catch (error) {
    if (error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable) {
      return "\0";
    }
    throw error;
  }
}

/** Options of `launchQwen`. */
export interface QwenLaunchOptions {
  /**
   * Reads the system settings file qwen would use.
   * @default a synchronous read of the real file
   */
  readUserFile?: ReadUserFile;
  /**
   * The platform the system settings path is for.
   * @default Deno.build.os
   */
  platform?: string;
}

/** Describes the launch of one Qwen Code attempt. */
export function launchQwen(spec: RunSpec, options: QwenLaunchOptions = {}): Launch {
  const read = options.readUserFile ?? readUserFile;
  const ownSystem = spec.baseEnv.QWEN_CODE_SYSTEM_SETTINGS_PATH ||
    systemSettingsPath(options.platform);
  const base = Object.fromEntries(
    Object.entries(spec.baseEnv).filter(([name]) => !DROPPED_ENV.includes(name)),
  );
  const prefix = spec.pathPrefix ?? [];
  const path = [...prefix, ...(base.PATH === undefined ? [] : [base.PATH])].join(delimiter);
  const env: Record<string, string> = {
    ...base,
    ...QUIET_ENV,
    ...(path === "" ? {} : { PATH: path }),
  };
  const files: LaunchFile[] = [];
  const settings = systemSettings(readOrUnreadable(read, ownSystem), spec.effort);
  if (settings !== null) {
    const file = join(spec.privateDir, "qwen-system-settings.json");
    files.push({ path: file, content: settings });
    env.QWEN_CODE_SYSTEM_SETTINGS_PATH = file;
    // The defaults file sits beside the system file unless named: keep the user's.
    env.QWEN_CODE_SYSTEM_DEFAULTS_PATH = spec.baseEnv.QWEN_CODE_SYSTEM_DEFAULTS_PATH ||
      join(dirname(ownSystem), "system-defaults.json");
  }
  return {
    argv: qwenArgv(spec),
    env,
    cwd: spec.cwd,
    files,
    stdin: spec.prompt,
    state: qwenState(env),
  };
}
