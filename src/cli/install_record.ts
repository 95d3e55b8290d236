/**
 * The install record (`<state dir>/installed.json`): every skill folder and MCP registration
 * `pitroom install` made, with what it replaced, so `uninstall` removes exactly those and gives
 * back what was there before. Written atomically after each install or uninstall that changed it.
 */
import { writeJsonAtomic } from "../sys/atomic.ts";
import { join } from "../sys/path.ts";
import { RefusedError } from "../sys/errors.ts";

/**
 * What `pitroom install` put in place (skills, MCP registrations), so `uninstall` removes exactly
 * that; the skills a compiled binary links to live next to it (`skills/<name>/`), the folders it
 * moved aside under `backups/`.
 */
export function installPaths(root: string): { record: string; skills: string; backups: string } {
  return {
    record: join(root, "installed.json"),
    skills: join(root, "skills"),
    backups: join(root, "backups"),
  };
}

/** One skill folder put in place. */
export interface SkillEntry {
  name: string;
  /** The folder in the client's skills dir (`~/.claude/skills/<name>`). */
  path: string;
  kind: "link" | "copy";
  /** A link's target. */
  target?: string;
  /** A copy's content hash (a copy the user changed since is left alone). */
  hash?: string;
  /** Where the user's own folder of that name was moved (`--force`). */
  backup?: string;
}

/** An MCP server entry as a client stores it. */
export interface ServerEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** One MCP registration made. */
export interface McpEntry {
  client: string;
  name: string;
  /** The config file the registration lives in. */
  config: string;
  entry: ServerEntry;
  /** The user's own entry of that name that `--force` replaced (raw, as the client had it). */
  replaced?: unknown;
  /** The install made the file (JSON clients): uninstall removes it again when it is empty. */
  createdFile?: boolean;
  /** The install made the `mcpServers` object (JSON clients). */
  createdContainer?: boolean;
}

/** The record. */
export interface InstallRecord {
  schemaVersion: 1;
  skills: SkillEntry[];
  mcp: McpEntry[];
}

/** Reads the record (empty when there is none). */
export async function readRecord(stateDir: string): Promise<InstallRecord> {
  const path = installPaths(stateDir).record;
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { schemaVersion: 1, skills: [], mcp: [] };
    throw error;
  }
  try {
    const value = JSON.parse(text);
    return {
      schemaVersion: 1,
      skills: Array.isArray(value.skills) ? value.skills : [],
      mcp: Array.isArray(value.mcp) ? value.mcp : [],
    };
  } catch (error) {
    throw new RefusedError("invalid_record", `"${path}" is not valid JSON: left untouched`, {
      cause: error,
    });
  }
}

/** Writes the record. */
export async function writeRecord(stateDir: string, record: InstallRecord): Promise<void> {
  const path = installPaths(stateDir).record;
  await Deno.mkdir(stateDir, { recursive: true });
  await writeJsonAtomic(path, record);
}
