/**
 * Doctor's "Integrations" section: where `pitroom install` registered the MCP server and put
 * the skills (from its install record), and what an agent would get twice: the Claude Code
 * plugin brings the skills and the MCP server too, so a plugin plus `pitroom install` in the
 * same client doubles them.
 */
import type { Check } from "../engine/mod.ts";
import type { Sys } from "../sys/mod.ts";
import { join } from "../sys/path.ts";
import { readRecord } from "./install_record.ts";

/** Reads a JSON file; null when it is missing or not JSON. */
async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await Deno.readTextFile(path));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof SyntaxError) return null;
    throw error;
  }
}

/**
 * The pitroom plugin as Claude Code has it: its key (`pitroom@<marketplace>`) in the plugin list
 * (`plugins/installed_plugins.json`, `{"version": 2, "plugins": {"<key>": [...]}}` as
 * `claude plugin install` writes it; another shape is searched for the name), and whether it is
 * on (`claude plugin disable` sets `enabledPlugins["<key>"]` to false in `settings.json`).
 * Null when it is not installed.
 */
async function claudePlugin(sys: Sys): Promise<{ key: string; enabled: boolean } | null> {
  const home = sys.env.get("HOME") ?? "";
  const dir = sys.env.get("CLAUDE_CONFIG_DIR") || join(home, ".claude");
  const list = await readJson(join(dir, "plugins", "installed_plugins.json"));
  if (list === null) return null;
  const plugins = (list as { plugins?: unknown }).plugins;
  const key = plugins !== null && typeof plugins === "object" && !Array.isArray(plugins)
    ? Object.keys(plugins).find((k) => k.startsWith("pitroom@"))
    : /"(pitroom@[^"\\]+)"/.exec(JSON.stringify(list))?.[1];
  if (key === undefined) return null;
  const settings = await readJson(join(dir, "settings.json"));
  const enabled = (settings as { enabledPlugins?: Record<string, unknown> } | null)
    ?.enabledPlugins?.[key];
  return { key, enabled: enabled !== false };
}

/** The checks of the integrations section. */
export async function integrationChecks(sys: Sys): Promise<Check[]> {
  const record = await readRecord(sys.stateDir);
  const checks: Check[] = [];
  const section = "integrations" as const;
  if (record.mcp.length === 0) {
    checks.push({
      check: "mcp",
      section,
      status: "warn",
      message: "the MCP server is registered in no client by pitroom install",
      hint: "pitroom install --mcp",
    });
  }
  for (const m of record.mcp) {
    checks.push({
      check: "mcp",
      section,
      status: "ok",
      message: `registered in ${m.client} (${m.config})`,
    });
  }
  const byDir = new Map<string, number>();
  for (const s of record.skills) {
    const dir = s.path.slice(0, s.path.lastIndexOf("/"));
    byDir.set(dir, (byDir.get(dir) ?? 0) + 1);
  }
  if (byDir.size === 0) {
    checks.push({
      check: "skills",
      section,
      status: "skip",
      message: "no skills installed by pitroom install",
      hint: "pitroom install",
    });
  }
  for (const [dir, n] of byDir) {
    checks.push({ check: "skills", section, status: "ok", message: `${n} skills in ${dir}` });
  }
  const plugin = await claudePlugin(sys);
  if (plugin !== null && !plugin.enabled) {
    checks.push({
      check: "plugin",
      section,
      status: "ok",
      message: `the pitroom plugin is installed in Claude Code but disabled (${plugin.key})`,
    });
  } else if (plugin !== null) {
    const mcpToo = record.mcp.some((m) => m.client === "claude-code");
    const skillsToo = record.skills.some((s) => /\/\.claude\/skills\//.test(s.path));
    checks.push(
      mcpToo || skillsToo
        ? {
          check: "plugin",
          section,
          status: "warn",
          message:
            `installed twice in Claude Code: the pitroom plugin and pitroom install both add ${
              [mcpToo ? "the MCP server" : "", skillsToo ? "the skills" : ""].filter(Boolean).join(
                " and ",
              )
            }`,
          hint: "pitroom uninstall",
        }
        : {
          check: "plugin",
          section,
          status: "ok",
          message: "the pitroom plugin is installed in Claude Code",
        },
    );
  }
  return checks;
}
