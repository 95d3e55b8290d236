/**
 * The HTTP server's bearer token: `PITROOM_MCP_TOKEN` (at least 16 characters), else the one
 * kept at `<state dir>/mcp-token` (owner-only), made on first start from 256 random bits. Two
 * servers starting at once agree on one token (the file is linked into place, never replaced).
 */
import { RefusedError, UsageError } from "../../sys/errors.ts";
import type { Sys } from "../../sys/mod.ts";
import { join } from "../../sys/path.ts";

/** The least length of a token set in the environment. */
export const MIN_TOKEN_LENGTH = 16;

/** A token and where it comes from. */
export interface McpToken {
  token: string;
  /** The file it is kept in (none when it comes from the environment). */
  path?: string;
}

/** The token file of a state dir. */
export function tokenPath(stateDir: string): string {
  return join(stateDir, "mcp-token");
}

/** The token the HTTP server checks (made and kept on first start). */
export async function mcpToken(sys: Sys): Promise<McpToken> {
  const fromEnv = sys.env.get("PITROOM_MCP_TOKEN");
  if (fromEnv !== undefined && fromEnv !== "") {
    if (fromEnv.trim().length < MIN_TOKEN_LENGTH) {
      throw new UsageError(
        `PITROOM_MCP_TOKEN is too short: it needs at least ${MIN_TOKEN_LENGTH} characters`,
        { hint: "unset it to use the token Pitroom makes, or set a longer one" },
      );
    }
    return { token: fromEnv.trim() };
  }
  const path = tokenPath(sys.stateDir);
  return { token: await keptSecret(sys, path, "MCP token"), path };
}

/**
 * A secret kept in a state-dir file (owner-only), made on first use from 256 random bits; two
 * processes making it at once agree on one (the file is linked into place, never replaced).
 */
export async function keptSecret(sys: Sys, path: string, what: string): Promise<string> {
  const kept = await readToken(path, what);
  if (kept !== null) return kept;
  await Deno.mkdir(sys.stateDir, { recursive: true, mode: 0o700 });
  const temp = `${path}.${sys.pid}.${sys.randomHex(4)}.tmp`;
  await Deno.writeTextFile(temp, sys.randomHex(32) + "\n", { mode: 0o600, createNew: true });
  try {
    await Deno.link(temp, path);
  } catch (error) {
    // Another process made it first: use theirs.
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  } finally {
    await Deno.remove(temp);
  }
  const made = await readToken(path, what);
  if (made === null) throw new RefusedError("mcp_token", `The ${what} file "${path}" is empty`);
  return made;
}

async function readToken(path: string, what: string): Promise<string | null> {
  let text: string;
  try {
    const info = await Deno.stat(path);
    if (info.mode !== null && (info.mode & 0o077) !== 0) {
      throw new RefusedError(
        "mcp_token",
        `The ${what} file "${path}" can be read by others (mode ${
          (info.mode & 0o777).toString(8)
        })`,
        { hint: `chmod 600 ${path}` },
      );
    }
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  const token = text.trim();
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new RefusedError("mcp_token", `The ${what} file "${path}" holds no usable token`, {
      hint: `remove it to get a new one: rm ${path}`,
    });
  }
  return token;
}

/** Compares a presented token with the real one in constant time (of the real one's length). */
export async function sameToken(given: string, token: string): Promise<boolean> {
  const enc = new TextEncoder();
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", enc.encode(given)),
    crypto.subtle.digest("SHA-256", enc.encode(token)),
  ]);
  const x = new Uint8Array(a);
  const y = new Uint8Array(b);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!;
  return diff === 0;
}
