/**
 * Task ids of the Tasks extension, made from what the task is (its runs, its group, the warnings
 * of its start) and signed with a key kept in the state dir (`mcp-task-key`): any server process
 * of the same state dir reads one back, after a reconnect or a restart, with no memory of having
 * made it, and nobody without the key can make or guess one. The form is
 * `pt1.<base64url JSON>.<base64url HMAC-SHA-256>`.
 */
import type { Sys } from "../../sys/mod.ts";
import { join } from "../../sys/path.ts";
import { keptSecret } from "./token.ts";
import { MCP_TOOL_NAMES, type McpToolName } from "./tool_names.ts";

/** What a task is: its tool, the runs its result shows (all of them ended: the task ended). */
export interface TaskSpec {
  tool: McpToolName;
  runs: string[];
  /** The runs it started, when not all of `runs` (an audit shows the audited run too). */
  going?: string[];
  group?: string;
  warnings?: string[];
}

const PREFIX = "pt1";

/** The signing key of a state dir (made on first use). */
export async function taskKey(sys: Sys): Promise<CryptoKey> {
  const secret = await keptSecret(sys, join(sys.stateDir, "mcp-task-key"), "MCP task key");
  return await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
}

function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function unbase64url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const bin = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** The id of a task. */
export async function encodeTaskId(spec: TaskSpec, key: CryptoKey): Promise<string> {
  const body = base64url(new TextEncoder().encode(JSON.stringify(spec)));
  const signed = `${PREFIX}.${body}`;
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(signed));
  return `${signed}.${base64url(new Uint8Array(mac))}`;
}

/** The task an id names, or null when it is not one of ours (malformed, or signed by another key). */
export async function decodeTaskId(id: string, key: CryptoKey): Promise<TaskSpec | null> {
  const parts = id.split(".");
  if (parts.length !== 3 || parts[0] !== PREFIX) return null;
  const mac = unbase64url(parts[2]!);
  const body = unbase64url(parts[1]!);
  if (mac === null || body === null) return null;
  const signed = new TextEncoder().encode(`${parts[0]}.${parts[1]}`);
  if (!(await crypto.subtle.verify("HMAC", key, mac as BufferSource, signed))) return null;
  let spec: unknown;
  try {
    spec = JSON.parse(new TextDecoder().decode(body));
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
  if (!isSpec(spec)) return null;
  return spec;
}

function isSpec(value: unknown): value is TaskSpec {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  const strings = (x: unknown) => Array.isArray(x) && x.every((s) => typeof s === "string");
  return MCP_TOOL_NAMES.includes(v.tool as McpToolName) &&
    strings(v.runs) && (v.runs as string[]).length > 0 &&
    (v.going === undefined || strings(v.going)) &&
    (v.group === undefined || typeof v.group === "string") &&
    (v.warnings === undefined || strings(v.warnings));
}
