/**
 * The other CLIs that speak Chat Completions to the scripted model server, besides opencode:
 * Kilo CLI 7.7.7 (OpenCode's tools and config, under `kilo/`) and GitHub Copilot CLI 1.0.102
 * (BYOK: `COPILOT_PROVIDER_BASE_URL`, its own tools `view`, `create`, `edit`, `bash`, `grep`,
 * `glob`, `web_fetch`). Copilot is recognised by the tool it offers even to a read run (`view`,
 * which no other Chat Completions client here names).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Action } from "../dialect.ts";
import { workerDirs } from "../worker_home.ts";

/** The API key the worker home gives Copilot: Copilot masks the key's text in everything it prints, so it must not be a word a stream contains. */
export const COPILOT_KEY = "pitroom-scripted-copilot-key-0f3a";

/** True when the offered tools are Copilot CLI's. */
export function isCopilot(offered: readonly string[]): boolean {
  return offered.includes("view");
}

/** One call of a Copilot CLI tool: its name and arguments (paths absolute). */
export function copilotCall(
  action: Exclude<Action, { tool: unknown }>,
  abs: (path: string) => string,
): { name: string; args: Record<string, unknown> } {
  if ("read" in action) return { name: "view", args: { path: abs(action.read) } };
  if ("list" in action) return { name: "view", args: { path: abs(action.list) } };
  if ("grep" in action) {
    const grep = typeof action.grep === "string" ? { pattern: action.grep } : action.grep;
    return {
      name: "grep",
      args: grep.path === undefined
        ? { pattern: grep.pattern }
        : { pattern: grep.pattern, paths: [abs(grep.path)] },
    };
  }
  if ("write" in action) {
    return {
      name: "create",
      args: { path: abs(action.write.path), file_text: action.write.content },
    };
  }
  if ("edit" in action) {
    return {
      name: "edit",
      args: { path: abs(action.edit.path), old_str: action.edit.old, new_str: action.edit.new },
    };
  }
  if ("shell" in action) {
    return { name: "bash", args: { command: action.shell, description: "Scripted command" } };
  }
  return { name: "web_fetch", args: { url: action.web } };
}

/**
 * Writes Kilo's config (`kilo/kilo.json`: the opencode config, with Kilo's own gateway provider
 * disabled so that no start waits on its model catalogue) and returns Kilo's and Copilot's env.
 */
export async function chatClientsEnv(
  home: string,
  baseUrl: string,
  opencodeConfig: Record<string, unknown>,
): Promise<Record<string, string>> {
  const dir = join(workerDirs(home).XDG_CONFIG_HOME, "kilo");
  await mkdir(dir, { recursive: true });
  const { $schema: _, ...config } = opencodeConfig;
  await writeFile(
    join(dir, "kilo.json"),
    JSON.stringify({ ...config, disabled_providers: ["kilo"] }, null, 2) + "\n",
  );
  return {
    KILO_DISABLE_MODELS_FETCH: "1",
    KILO_DISABLE_AUTOUPDATE: "1",
    KILO_TELEMETRY_LEVEL: "off",
    COPILOT_OFFLINE: "true",
    COPILOT_PROVIDER_BASE_URL: `${baseUrl}/v1`,
    COPILOT_PROVIDER_API_KEY: COPILOT_KEY,
    COPILOT_AUTO_UPDATE: "false",
    COPILOT_HOME: join(home, ".copilot"),
  };
}
