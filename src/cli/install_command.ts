/** `pitroom install` and `pitroom uninstall`, declared beside their code (install.ts). */
import { defineCommand, flag, JSON_FLAG } from "./command.ts";

export const INSTALL_FLAGS = {
  statusline: flag.boolean({ describe: "the status line and hook card in Claude Code" }),
  skills: flag.boolean({ describe: "the skills in ~/.agents/skills, ~/.claude/skills" }),
  mcp: flag.boolean({ describe: "the MCP server in each MCP client found" }),
  client: flag.repeated({
    value: "LIST",
    describe:
      "only these MCP clients: claude-code (or claude),codex,gemini,cursor,claude-desktop (implies --mcp)",
  }),
  copy: flag.boolean({ describe: "copy the skills instead of linking them" }),
  force: flag.boolean({ describe: "replace a folder or server of yours (backed up)" }),
  "dry-run": flag.boolean({ describe: "show what would change, write nothing" }),
  json: JSON_FLAG,
};

export const INSTALL = defineCommand({
  name: "install",
  summary: "put Pitroom into your agents: status line and hook card, skills, the MCP server",
  description: [
    "Parts: --statusline, --skills, --mcp (any of them: only those; none: the first two).",
    "The status line and hook card go into Claude Code's settings",
    "($CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json: merged, backed up once)",
    "and the skills, linked (--copy: copied) into ~/.agents/skills and ~/.claude/skills when",
    "~/.agents or ~/.claude exists. --mcp registers `pitroom mcp` in each MCP client found",
    "(claude-code, codex, gemini through their own `mcp add`; cursor, claude-desktop by a JSON",
    "merge, backed up once). A folder or server of yours with the same name is kept unless",
    "--force. Running it again changes nothing; a config that is not valid JSON is refused",
    "(exit 3) before anything is written.",
  ].join("\n"),
  flags: INSTALL_FLAGS,
  args: [],
  examples: [
    "pitroom install --dry-run",
    "pitroom install",
    "pitroom install --mcp",
    "pitroom install --mcp --client codex,cursor",
  ],
  run: () => import("./install.ts").then((m) => m.installCommand),
});

// uninstall takes out what install put in: the same parts, nothing to copy or replace.
const { copy: _copy, force: _force, ...uninstallFlags } = INSTALL_FLAGS;

export const UNINSTALL_FLAGS = uninstallFlags;

export const UNINSTALL = defineCommand({
  name: "uninstall",
  summary: "take out again exactly what `pitroom install` put in place",
  description: [
    "The same parts as install (--statusline, --skills, --mcp; without one: the first two).",
    "Removes only what the install record says was installed and is still as installed, and",
    "gives back what --force had replaced.",
  ].join("\n"),
  flags: UNINSTALL_FLAGS,
  args: [],
  examples: ["pitroom uninstall", "pitroom uninstall --mcp"],
  run: () => import("./install.ts").then((m) => m.uninstallCommand),
});
