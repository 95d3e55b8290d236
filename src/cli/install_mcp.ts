/**
 * The MCP part of `pitroom install --mcp` / `uninstall --mcp`: registers the stdio server (this
 * program's own command line + `mcp`) as `pitroom` in each client found. Claude Code, Codex and
 * Gemini CLI are asked through their own CLI (`claude mcp add -s user`, `codex mcp add`,
 * `gemini mcp add -s user`); Cursor (`~/.cursor/mcp.json`) and Claude Desktop
 * (`claude_desktop_config.json`) get a careful JSON merge (json_splice.ts: only the `pitroom`
 * member is written) with a one-time backup. An entry of that name that is not ours is kept unless
 * `--force` (then it is recorded and given back by `uninstall`); `uninstall` removes only an
 * entry that is still the one installed.
 */
import { RefusedError, UsageError } from "../sys/errors.ts";
import { lstatOrNull } from "../sys/fs.ts";
import type { Sys } from "../sys/mod.ts";
import { readJsonConfig, writeConfig } from "./install_files.ts";
import {
  type Client,
  CLIENTS,
  type Ctx,
  firstLine,
  isObject,
  MCP_CLIENTS,
  type McpClientId,
  mcpClientNamed,
  onPath,
  SERVER_NAME,
} from "./install_mcp_clients.ts";
import type { InstallRecord, McpEntry, ServerEntry } from "./install_record.ts";
import { setMember, unsetMember } from "./json_splice.ts";
import { shellLine } from "./shell_words.ts";

export { MCP_CLIENTS, type McpClientId, SERVER_NAME } from "./install_mcp_clients.ts";

/** What happened in one client. */
export interface McpChange {
  client: McpClientId;
  action:
    | "added"
    | "unchanged"
    | "updated"
    | "kept"
    | "replaced"
    | "removed"
    | "restored"
    | "left"
    | "absent";
  /** The config file the entry lives in. */
  config: string;
  /** The client commands run (or, in a dry run, that would run). */
  commands?: string[];
  /** A config file written (or that would be). */
  wrote?: string;
  backup?: string;
}

/** The entry that starts this program's stdio MCP server. */
export function serverEntry(sys: Sys): ServerEntry {
  const [command, ...rest] = sys.selfCommand();
  const denoDir = sys.env.get("DENO_DIR");
  // From source the program is `deno run ...`: it needs the module cache it was started with.
  const env = rest.length > 0 && denoDir ? { DENO_DIR: denoDir } : undefined;
  return { command: command!, args: [...rest, "mcp"], ...(env ? { env } : {}) };
}

/** True when the client's raw entry starts the same program with the same environment. */
export function sameEntry(raw: unknown, entry: ServerEntry): boolean {
  if (!isObject(raw) || raw.command !== entry.command || !Array.isArray(raw.args)) return false;
  if (raw.args.length !== entry.args.length || raw.args.some((a, i) => a !== entry.args[i])) {
    return false;
  }
  const env = isObject(raw.env) ? raw.env : {};
  const want = entry.env ?? {};
  return Object.keys(want).length === Object.keys(env).length &&
    Object.entries(want).every(([k, v]) => env[k] === v);
}

/** The clients `--client` names (all when none), checked. */
export function parseClients(values: readonly string[] | undefined): McpClientId[] | null {
  if (values === undefined) return null;
  const words = values.flatMap((v) => v.split(",")).map((w) => w.trim()).filter((w) => w !== "");
  const clients = new Set<McpClientId>();
  for (const word of words) {
    const client = mcpClientNamed(word);
    if (client === undefined) {
      throw new UsageError(`Unknown MCP client "${word}"`, {
        hint: `name one of ${MCP_CLIENTS.join(", ")} (or claude for claude-code)`,
      });
    }
    clients.add(client);
  }
  return [...clients];
}

async function cli(ctx: Ctx, client: Client, argv: string[], commands: string[]): Promise<void> {
  const binary = onPath(client.binary!, ctx.env)!;
  commands.push(shellLine([client.binary!, ...argv]));
  if (ctx.dryRun) return;
  const out = await ctx.sys.runner.run([binary, ...argv], {
    env: { ...ctx.env, GEMINI_CLI_NO_RELAUNCH: "true" },
    stdin: { kind: "null" },
  });
  if (out.code !== 0) {
    throw new RefusedError(
      "client_failed",
      `\`${client.binary} ${argv.slice(0, 2).join(" ")}\` failed (exit ${out.code}): ${
        firstLine(out.stderr || out.stdout)
      }`,
    );
  }
}

/** Writes (or with `value` undefined removes) the JSON client's entry; returns the change bits. */
async function writeJson(
  ctx: Ctx,
  path: string,
  value: unknown,
  options: { dropEmpty?: boolean; removeEmptyFile?: boolean } = {},
): Promise<{ wrote: string; backup?: string }> {
  const { text } = await readJsonConfig(
    path,
    value === undefined ? "uninstall --mcp" : "install --mcp",
  );
  const next = value === undefined
    ? unsetMember(text ?? "{}", "mcpServers", SERVER_NAME, {
      dropEmpty: options.dropEmpty === true,
    })
    : setMember(text ?? "", "mcpServers", SERVER_NAME, value);
  if (ctx.dryRun) return { wrote: path };
  if (options.removeEmptyFile && text !== null && JSON.stringify(JSON.parse(next)) === "{}") {
    await Deno.remove(path);
    return { wrote: path };
  }
  const backedUp = await writeConfig(path, text, next);
  return { wrote: path, ...(backedUp ? { backup: `${path}.pitroom-backup` } : {}) };
}

async function put(ctx: Ctx, client: Client, entry: ServerEntry, replace: boolean) {
  const commands: string[] = [];
  if (client.addArgv) {
    if (replace) await cli(ctx, client, client.removeArgv!(), commands);
    await cli(ctx, client, client.addArgv(entry), commands);
    if (!ctx.dryRun && !sameEntry(await client.current(ctx), entry)) {
      throw new RefusedError(
        "client_failed",
        `\`${client.binary} mcp add\` stored another command than the one given: check ${
          client.config(ctx)
        }`,
      );
    }
    return { commands };
  }
  const value = {
    command: entry.command,
    args: entry.args,
    ...(entry.env ? { env: entry.env } : {}),
  };
  return await writeJson(ctx, client.config(ctx), value);
}

/** Options of an MCP install. */
export interface McpOptions {
  clients: McpClientId[] | null;
  force: boolean;
  dryRun: boolean;
}

function context(sys: Sys, dryRun: boolean): Ctx {
  const env = sys.env.toObject();
  return { sys, env, home: env.HOME ?? "", dryRun };
}

/** Registers the server in each client found (or named); updates `record.mcp`. */
export async function installMcp(
  sys: Sys,
  record: InstallRecord,
  options: McpOptions,
): Promise<McpChange[]> {
  const ctx = context(sys, options.dryRun);
  const entry = serverEntry(sys);
  const named = options.clients;
  const clients: Client[] = [];
  for (const id of named ?? MCP_CLIENTS) {
    const client = CLIENTS[id];
    if (await client.found(ctx)) clients.push(client);
    else if (named !== null) {
      throw new RefusedError(
        "client_missing",
        `Cannot register Pitroom in ${id}: ${
          client.binary
            ? `\`${client.binary}\` is not on PATH`
            : `${client.config(ctx)}'s folder does not exist`
        }`,
        { hint: "install the client first, or leave it out of --client" },
      );
    }
  }
  const changes: McpChange[] = [];
  for (const client of clients) {
    const config = client.config(ctx);
    const at = record.mcp.findIndex((e) => e.client === client.id);
    const recorded = at >= 0 ? record.mcp[at]! : null;
    const raw = await client.current(ctx);
    const created = client.addArgv ? {} : {
      ...(raw === undefined && (await lstatOrNull(config)) === null ? { createdFile: true } : {}),
      ...(raw === undefined && !(await hasContainer(config)) ? { createdContainer: true } : {}),
    };
    const keep = (extra: Partial<McpEntry>) => {
      const next: McpEntry = {
        client: client.id,
        name: SERVER_NAME,
        config,
        entry,
        ...(recorded?.replaced !== undefined ? { replaced: recorded.replaced } : {}),
        ...(recorded?.createdFile ? { createdFile: true } : {}),
        ...(recorded?.createdContainer ? { createdContainer: true } : {}),
        ...extra,
      };
      if (at >= 0) record.mcp[at] = next;
      else record.mcp.push(next);
    };
    if (raw === undefined) {
      const done = await put(ctx, client, entry, false);
      keep(created);
      changes.push({ client: client.id, action: "added", config, ...done });
    } else if (sameEntry(raw, entry)) {
      keep({});
      changes.push({ client: client.id, action: "unchanged", config });
    } else if (recorded !== null && sameEntry(raw, recorded.entry)) {
      const done = await put(ctx, client, entry, true);
      keep({});
      changes.push({ client: client.id, action: "updated", config, ...done });
    } else if (!options.force) {
      changes.push({ client: client.id, action: "kept", config });
    } else {
      const done = await put(ctx, client, entry, true);
      keep({ replaced: raw });
      changes.push({ client: client.id, action: "replaced", config, ...done });
    }
  }
  return changes;
}

async function hasContainer(path: string): Promise<boolean> {
  const { value } = await readJsonConfig(path, "install --mcp");
  return isObject(value.mcpServers);
}

/** Removes each recorded registration that is still the one installed. */
export async function uninstallMcp(
  sys: Sys,
  record: InstallRecord,
  options: { clients: McpClientId[] | null; dryRun: boolean },
): Promise<McpChange[]> {
  const ctx = context(sys, options.dryRun);
  const changes: McpChange[] = [];
  for (const rec of [...record.mcp]) {
    const id = rec.client as McpClientId;
    if (options.clients !== null && !options.clients.includes(id)) continue;
    const client = CLIENTS[id];
    if (client === undefined) continue;
    const found = await client.found(ctx);
    const raw = found ? await client.current(ctx) : undefined;
    let change: McpChange;
    if (raw === undefined) change = { client: id, action: "absent", config: rec.config };
    else if (!sameEntry(raw, rec.entry)) {
      change = { client: id, action: "left", config: rec.config };
    } else if (client.addArgv) {
      const commands: string[] = [];
      await cli(ctx, client, client.removeArgv!(), commands);
      const back = restorable(rec.replaced);
      if (back !== null) await cli(ctx, client, client.addArgv(back), commands);
      change = { client: id, action: back ? "restored" : "removed", config: rec.config, commands };
    } else if (rec.replaced !== undefined) {
      const done = await writeJson(ctx, rec.config, rec.replaced);
      change = { client: id, action: "restored", config: rec.config, ...done };
    } else {
      const done = await writeJson(ctx, rec.config, undefined, {
        dropEmpty: rec.createdContainer === true,
        removeEmptyFile: rec.createdFile === true,
      });
      change = { client: id, action: "removed", config: rec.config, ...done };
    }
    changes.push(change);
    record.mcp = record.mcp.filter((e) => e !== rec);
  }
  return changes;
}

/** A replaced entry that can be added back through a client's CLI (a stdio command). */
function restorable(raw: unknown): ServerEntry | null {
  if (!isObject(raw) || typeof raw.command !== "string") return null;
  const args = Array.isArray(raw.args) ? raw.args.map(String) : [];
  const env = isObject(raw.env)
    ? Object.fromEntries(Object.entries(raw.env).map(([k, v]) => [k, String(v)]))
    : undefined;
  return { command: raw.command, args, ...(env && Object.keys(env).length ? { env } : {}) };
}
