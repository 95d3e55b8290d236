/**
 * Qwen Code's side of the Chat Completions dialect (qwen 0.24.4, through its OpenAI-compatible
 * auth): how a request from qwen is told apart (it offers gemini-cli's tool names), where it
 * states its working directory, the scenario actions as its tools, and the settings that point
 * it at the server.
 */
import type { Action } from "../dialect.ts";

/** Tools only Qwen Code offers among the Chat Completions clients. */
const QWEN_MARKS = new Set(["read_file", "grep_search", "run_shell_command", "write_file"]);

/** True when the offered tools are Qwen Code's. */
export function isQwen(offered: readonly string[]): boolean {
  return offered.some((name) => QWEN_MARKS.has(name));
}

/** Qwen Code states its working directory in its first user message. */
export const QWEN_CWD_LINE = /^\s*I'm currently working in the directory:\s*(\S.*?)\s*$/m;

/** An action as a call of Qwen Code's tools (`file_path` arguments, absolute paths). */
export function qwenCall(
  action: Action,
  abs: (path: string) => string,
  offered: readonly string[],
): { name: string; args: Record<string, unknown> } {
  if ("tool" in action) return { name: action.tool.name, args: action.tool.input };
  if ("read" in action) return { name: "read_file", args: { file_path: abs(action.read) } };
  if ("list" in action) {
    return offered.includes("list_directory")
      ? { name: "list_directory", args: { path: abs(action.list) } }
      : { name: "glob", args: { pattern: "*", path: abs(action.list) } };
  }
  if ("grep" in action) {
    const grep = typeof action.grep === "string" ? { pattern: action.grep } : action.grep;
    return {
      name: "grep_search",
      args: grep.path === undefined
        ? { pattern: grep.pattern }
        : { pattern: grep.pattern, path: abs(grep.path) },
    };
  }
  if ("write" in action) {
    return {
      name: "write_file",
      args: { file_path: abs(action.write.path), content: action.write.content },
    };
  }
  if ("edit" in action) {
    return {
      name: "edit",
      args: {
        file_path: abs(action.edit.path),
        old_string: action.edit.old,
        new_string: action.edit.new,
      },
    };
  }
  if ("shell" in action) return { name: "run_shell_command", args: { command: action.shell } };
  return { name: "web_fetch", args: { url: action.web, prompt: `Summarise ${action.web}` } };
}

/**
 * Qwen Code's user settings (`~/.qwen/settings.json`) pointing its OpenAI-compatible auth at
 * `baseUrl`, with no retries of a 429 and nothing sent elsewhere.
 */
export function qwenSettings(baseUrl: string): Record<string, unknown> {
  return {
    security: { auth: { selectedType: "openai", apiKey: "x", baseUrl: `${baseUrl}/v1` } },
    model: { generationConfig: { maxRetries: 0 } },
    general: { enableAutoUpdate: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  };
}
