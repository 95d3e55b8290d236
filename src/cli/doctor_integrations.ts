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

/** True when Claude Code has the pitroom plugin installed (its plugin list names it). */
async function claudePlugin(sys: Sys): Promise<boolean> {
  const home = sys.env.get("HOME") ?? "";
  const dir = sys.env.get("CLAUDE_CONFIG_DIR") || join(home, ".claude");
  try {
    const list = JSON.parse(
      await Deno.readTextFile(join(dir, "plugins", "installed_plugins.json")),
    );
    return /"pitroom@/.test(JSON.stringify(list));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof SyntaxError) return false;
    throw error;
  }
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
  if (await claudePlugin(sys)) {
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
