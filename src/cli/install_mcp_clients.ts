/**
 * The MCP clients `pitroom install --mcp` knows: for each, where its entry lives, how to tell it
 * is installed, how to read its current `pitroom` entry, and (for the clients with a CLI) the
 * `mcp add` / `mcp remove` command lines, as each pinned CLI takes them (checked against their
 * `--help` and their files in tests/cli/install_mcp_test.ts).
 */
import { RefusedError } from "../sys/errors.ts";
import { lstatOrNull, statOrNullSync } from "../sys/fs.ts";
import type { Sys } from "../sys/mod.ts";
import { delimiter, isAbsolute, join } from "../sys/path.ts";
import { readJsonConfig } from "./install_files.ts";
import type { ServerEntry } from "./install_record.ts";

/** The clients `--client` names. */
export const MCP_CLIENTS = ["claude-code", "codex", "gemini", "cursor", "claude-desktop"] as const;
export type McpClientId = (typeof MCP_CLIENTS)[number];

/** The short (or long) names `--client` also takes, each for one client. */
export const MCP_CLIENT_ALIASES: Readonly<Record<string, McpClientId>> = {
  claude: "claude-code",
  "codex-cli": "codex",
  "gemini-cli": "gemini",
  desktop: "claude-desktop",
};

/** The client a `--client` word names (its id or an alias, any case), or undefined. */
export function mcpClientNamed(word: string): McpClientId | undefined {
  const lower = word.toLowerCase();
  const id = MCP_CLIENTS.find((c) => c === lower);
  if (id !== undefined) return id;
  return Object.hasOwn(MCP_CLIENT_ALIASES, lower) ? MCP_CLIENT_ALIASES[lower] : undefined;
}

/** The server's name in every client. */
export const SERVER_NAME = "pitroom";

/** What a client step sees. */
export interface Ctx {
  sys: Sys;
  env: Record<string, string>;
  home: string;
  dryRun: boolean;
}

/** One MCP client. */
export interface Client {
  id: McpClientId;
  /** The config file the entry lives in. */
  config(ctx: Ctx): string;
  /** The client's CLI, for clients registered through it. */
  binary?: string;
  /** True when the client is installed here. */
  found(ctx: Ctx): Promise<boolean>;
  /** The client's current `pitroom` entry (raw), undefined when none. */
  current(ctx: Ctx): Promise<unknown>;
  addArgv?(entry: ServerEntry): string[];
  removeArgv?(): string[];
}

/** True for a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The full path of `binary` on PATH, else null. */
export function onPath(binary: string, env: Record<string, string>): string | null {
  if (isAbsolute(binary)) return statOrNullSync(binary) !== null ? binary : null;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && statOrNullSync(join(dir, binary))?.isFile) return join(dir, binary);
  }
  return null;
}

async function jsonEntry(path: string, container = "mcpServers"): Promise<unknown> {
  const { value } = await readJsonConfig(path, "install --mcp");
  const servers = value[container];
  return isObject(servers) ? servers[SERVER_NAME] : undefined;
}

function envFlags(flag: string, env: Record<string, string> | undefined): string[] {
  return Object.entries(env ?? {}).flatMap(([k, v]) => [flag, `${k}=${v}`]);
}

async function isDir(path: string): Promise<boolean> {
  return (await lstatOrNull(path))?.isDirectory === true;
}

function claudeDesktopDir(ctx: Ctx): string {
  if (Deno.build.os === "darwin") return join(ctx.home, "Library", "Application Support", "Claude");
  if (Deno.build.os === "windows") {
    return join(ctx.env.APPDATA ?? join(ctx.home, "AppData", "Roaming"), "Claude");
  }
  return join(ctx.env.XDG_CONFIG_HOME || join(ctx.home, ".config"), "Claude");
}

/** The clients by id. */
export const CLIENTS: Record<McpClientId, Client> = {
  "claude-code": {
    id: "claude-code",
    binary: "claude",
    config: (ctx) => join(ctx.env.CLAUDE_CONFIG_DIR || ctx.home, ".claude.json"),
    found: (ctx) => Promise.resolve(onPath("claude", ctx.env) !== null),
    current(ctx) {
      return jsonEntry(this.config(ctx));
    },
    addArgv: (e) => [
      "mcp",
      "add",
      "--scope",
      "user",
      SERVER_NAME,
      ...envFlags("-e", e.env),
      "--",
      e.command,
      ...e.args,
    ],
    removeArgv: () => ["mcp", "remove", "--scope", "user", SERVER_NAME],
  },
  codex: {
    id: "codex",
    binary: "codex",
    config: (ctx) => join(ctx.env.CODEX_HOME || join(ctx.home, ".codex"), "config.toml"),
    found: (ctx) => Promise.resolve(onPath("codex", ctx.env) !== null),
    async current(ctx) {
      const out = await ctx.sys.runner.run(
        [onPath("codex", ctx.env)!, "mcp", "get", SERVER_NAME, "--json"],
        { env: ctx.env, stdin: { kind: "null" } },
      );
      if (out.code !== 0) {
        if (/No MCP server named/.test(out.stderr + out.stdout)) return undefined;
        throw new RefusedError(
          "client_failed",
          `Could not read codex's MCP servers: ${firstLine(out.stderr || out.stdout)}`,
        );
      }
      const value = JSON.parse(out.stdout);
      const t = isObject(value) && isObject(value.transport) ? value.transport : value;
      return {
        ...(typeof t.url === "string" ? { url: t.url } : {}),
        ...(typeof t.command === "string" ? { command: t.command } : {}),
        args: Array.isArray(t.args) ? t.args : [],
        ...(isObject(t.env) ? { env: t.env } : {}),
      };
    },
    addArgv: (
      e,
    ) => ["mcp", "add", SERVER_NAME, ...envFlags("--env", e.env), "--", e.command, ...e.args],
    removeArgv: () => ["mcp", "remove", SERVER_NAME],
  },
  gemini: {
    id: "gemini",
    binary: "gemini",
    config: (ctx) => join(ctx.env.GEMINI_CLI_HOME || ctx.home, ".gemini", "settings.json"),
    found: (ctx) => Promise.resolve(onPath("gemini", ctx.env) !== null),
    current(ctx) {
      return jsonEntry(this.config(ctx));
    },
    // gemini's own options may follow the command: its words go last, no `--` (it counts that).
    addArgv: (e) => [
      "mcp",
      "add",
      "--scope",
      "user",
      ...envFlags("-e", e.env),
      SERVER_NAME,
      e.command,
      ...e.args,
    ],
    removeArgv: () => ["mcp", "remove", "--scope", "user", SERVER_NAME],
  },
  cursor: {
    id: "cursor",
    config: (ctx) => join(ctx.home, ".cursor", "mcp.json"),
    found: (ctx) => isDir(join(ctx.home, ".cursor")),
    current(ctx) {
      return jsonEntry(this.config(ctx));
    },
  },
  "claude-desktop": {
    id: "claude-desktop",
    config: (ctx) => join(claudeDesktopDir(ctx), "claude_desktop_config.json"),
    found: (ctx) => isDir(claudeDesktopDir(ctx)),
    current(ctx) {
      return jsonEntry(this.config(ctx));
    },
  },
};

/** The first line of a command's output. */
export function firstLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}
