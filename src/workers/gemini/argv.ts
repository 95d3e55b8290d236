/**
 * The Gemini CLI launch: `gemini --output-format stream-json --approval-mode MODE --policy FILE`
 * with the prompt on stdin (gemini 0.61.0 runs headless when stdin is not a terminal and `-p` is
 * absent, and sends the piped text verbatim as the prompt), then stdin closed.
 *
 * Permissions come from the approval mode plus a generated policy file in the attempt's private
 * dir (the user's own settings and policies stay untouched; `--policy` rules sit in the user tier,
 * above workspace policies):
 * - read: `default` mode, which headless offers read and search tools only; the policy also
 *   removes edit, write, shell and (unless `web`) web tools, so a call anyway answers
 *   `tool_not_registered`.
 * - write / isolate: `auto_edit` (edits in place) plus a policy rule that allows the shell, with
 *   deny rules (`commandPrefix`) for history-changing and destructive commands, which answer
 *   `policy_violation`.
 * Never `yolo`: yolo plus a deny policy is still a bypass flag. No rule is `ask_user`: headless
 * gemini turns an ask into a denial, which would silently remove a tool.
 */
import { delimiter, join } from "../../sys/path.ts";
import { MODES } from "../modes.ts";
import type { Launch, LaunchFile, Mode, RunSpec } from "../types.ts";
import { effortHome, type ReadUserFile, readUserFile } from "./effort.ts";
import { deniedCommandPrefixes } from "../../confine/floor.ts";

/** Tools that change files. */
export const EDIT_TOOLS: readonly string[] = ["replace", "write_file"];
/** The shell tool. */
export const SHELL_TOOL = "run_shell_command";
/** Tools that reach the web. */
export const WEB_TOOLS: readonly string[] = ["web_fetch", "google_web_search"];

/** Command prefixes the shell may never run in write and isolate modes (policy/floor.ts). */
export const DENIED_COMMAND_PREFIXES: readonly string[] = deniedCommandPrefixes();

/** Approval mode of a run mode. */
export function approvalMode(mode: Mode): "default" | "auto_edit" {
  return MODES[mode].edits ? "auto_edit" : "default";
}

function tomlString(value: string): string {
  return JSON.stringify(value);
}

function tomlList(values: readonly string[]): string {
  return `[${values.map(tomlString).join(", ")}]`;
}

function rule(fields: Record<string, string | number>): string {
  const lines = Object.entries(fields).map(([key, value]) =>
    `${key} = ${typeof value === "number" ? String(value) : value}`
  );
  return ["[[rule]]", ...lines].join("\n");
}

/** The policy file (TOML) of a run mode: what the worker may never do, and the shell in write. */
export function policyToml(mode: Mode, web: boolean): string {
  const rules: string[] = [];
  const denied = MODES[mode].edits ? [] : [...EDIT_TOOLS, SHELL_TOOL, "activate_skill"];
  if (!web) denied.push(...WEB_TOOLS);
  if (denied.length > 0) {
    rules.push(rule({ toolName: tomlList(denied), decision: '"deny"', priority: 900 }));
  }
  if (web) {
    rules.push(rule({ toolName: tomlList(WEB_TOOLS), decision: '"allow"', priority: 800 }));
  }
  if (MODES[mode].edits) {
    rules.push(rule({ toolName: tomlString(SHELL_TOOL), decision: '"allow"', priority: 100 }));
    rules.push(rule({
      toolName: tomlString(SHELL_TOOL),
      commandPrefix: tomlList(DENIED_COMMAND_PREFIXES),
      decision: '"deny"',
      priority: 900,
    }));
  }
  return `# Pitroom ${mode} profile (generated for one attempt)\n\n${rules.join("\n\n")}\n`;
}

function withPath(env: Record<string, string>, prefix: string[] | undefined): string | undefined {
  if (prefix === undefined || prefix.length === 0) return env.PATH;
  return [...prefix, ...(env.PATH === undefined ? [] : [env.PATH])].join(delimiter);
}

/** Options of `geminiLaunch`. */
export interface GeminiLaunchOptions {
  /**
   * Reads the user's gemini files, only when an effort asks for a private home (effort.ts).
   * @default a synchronous read of the real file
   */
  readUserFile?: ReadUserFile;
}

/**
 * Describes the launch of one gemini attempt. With an effort, the user's gemini settings and
 * login files are read (through `options.readUserFile`) into a private home that carries the
 * thinking level; everything else is a pure description.
 */
export function geminiLaunch(spec: RunSpec, options: GeminiLaunchOptions = {}): Launch {
  const effort = spec.effort === undefined
    ? undefined
    : effortHome(spec, spec.effort, options.readUserFile ?? readUserFile);
  const policyPath = join(spec.privateDir, "gemini-policy.toml");
  const argv = [
    "gemini",
    "--output-format",
    "stream-json",
    "--approval-mode",
    approvalMode(spec.mode),
    "--policy",
    policyPath,
  ];
  const model = effort?.model ?? spec.model;
  if (model !== undefined) argv.push("-m", model);
  if (spec.sessionId !== undefined) argv.push("--resume", spec.sessionId);
  const path = withPath(spec.baseEnv, spec.pathPrefix);
  const env: Record<string, string> = {
    ...spec.baseEnv,
    ...(path === undefined ? {} : { PATH: path }),
    // One node process (no self re-exec), and a headless run in a folder gemini has not seen.
    GEMINI_CLI_NO_RELAUNCH: "true",
    GEMINI_CLI_TRUST_WORKSPACE: "true",
    ...effort?.env,
  };
  const files: LaunchFile[] = [
    { path: policyPath, content: policyToml(spec.mode, spec.web) },
    ...(effort?.files ?? []),
  ];
  return {
    argv,
    env,
    cwd: spec.cwd,
    files,
    stdin: spec.prompt,
    state: geminiState(env),
  };
}

/** Gemini's own folder (`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`): sessions and logs. */
export function geminiState(env: Record<string, string>): string[] {
  const home = env.GEMINI_CLI_HOME ?? env.HOME;
  return home === undefined ? [] : [join(home, ".gemini")];
}
