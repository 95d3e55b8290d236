/**
 * What a Pitroom MCP tool is: a name from tool_names.ts, zod schemas for its input and its
 * structured result, honest annotations, and `call`, which works on the engine and returns the
 * structured result with a short text. `registerTools` serves them on a server's `tools/list`
 * and `tools/call`: the input is checked against its schema, the result against the output
 * schema (and stripped to it), and a thrown `PitroomError` becomes a tool result with `isError`
 * and the message and hint the CLI prints. A call that may become a task (tasks.ts) is handed
 * to `onCall` first.
 */
import { z } from "zod/v4";
import type { Engine } from "../../engine/mod.ts";
import { errorText } from "../../sys/errors.ts";
import type { Clock } from "../../sys/mod.ts";
import type { CallToolResult, McpServer, ServerContext, ToolAnnotations } from "./sdk.ts";
import type { McpToolName } from "./tool_names.ts";

/** What a call gets of its request: its cancellation signal, its `_meta`, a way to notify. */
export interface CallExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number; [key: string]: unknown };
  sendNotification(
    notification: { method: string; params?: Record<string, unknown> },
  ): Promise<void>;
}

/** What every tool call gets. */
export interface ToolContext {
  engine: Engine;
  /** The directory runs work in when the call names none (`pitroom mcp -d DIR`). */
  dir: string;
  clock: Clock;
  /** The call's own: its cancellation signal, progress token, notifications. */
  extra: CallExtra;
  /** True while the session is open (a cancelled call, not a closed session, stops runs). */
  connected(): boolean;
  /** The dashboard's address for a run still going, when that is wanted (else undefined). */
  dashAddress(): Promise<string | undefined>;
}

/** A tool's answer: the structured result and a short text for the model. */
export interface ToolAnswer<T> {
  result: T;
  text: string;
  /** A result that reports a failure (a refused run), not a protocol error. */
  isError?: boolean;
}

/** One tool. */
export interface PitroomTool<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
> {
  name: McpToolName;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  call(input: z.infer<I>, ctx: ToolContext): Promise<ToolAnswer<z.input<O>>>;
}

/** Declares a tool (the identity: it keeps the schemas' types together). */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  tool: PitroomTool<I, O>,
): PitroomTool {
  return tool as unknown as PitroomTool;
}

/** What the server hands each call besides its `extra`. */
export type ContextOf = (extra: CallExtra) => ToolContext;

/**
 * Decides a call before it runs: `undefined` lets it run as a plain call, a result answers the
 * call instead (a task handle).
 */
export type CallHook = (
  tool: PitroomTool,
  input: Record<string, unknown>,
  ctx: ToolContext,
  request: ServerContext,
) => Promise<Record<string, unknown> | undefined>;

/** Options of `registerTools`. */
export interface RegisterToolsOptions {
  /** Each call's promise is in here until it settles. */
  inflight?: Set<Promise<unknown>>;
  /** Tools list `execution.taskSupport` (the 2025-11-25 field: "forbidden"). @default false */
  legacyExecution?: boolean;
  onCall?: CallHook;
}

/** A tool's JSON Schema as `tools/list` shows it (draft 7, as before). */
function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: "draft-7", io }) as Record<string, unknown>;
}

/** The `tools/list` entry of one tool (the JSON Schemas made once per server). */
function listed(tool: PitroomTool, legacyExecution: boolean): Record<string, unknown> {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.input, "input"),
    annotations: { title: tool.title, ...tool.annotations },
    ...(legacyExecution ? { execution: { taskSupport: "forbidden" } } : {}),
    outputSchema: jsonSchemaOf(tool.output, "output"),
  };
}

/** The `extra` of a call, from the SDK's request context. */
export function extraOf(request: ServerContext): CallExtra {
  return {
    signal: request.mcpReq.signal,
    ...(request.mcpReq._meta === undefined
      ? {}
      : { _meta: request.mcpReq._meta as NonNullable<CallExtra["_meta"]> }),
    sendNotification: (notification) =>
      request.mcpReq.notify(notification as Parameters<typeof request.mcpReq.notify>[0]),
  };
}

/** Each tool list's entries, made once per process (a per-request server lists them again). */
const LISTINGS = new WeakMap<readonly PitroomTool[], Map<boolean, Record<string, unknown>[]>>();

function listing(tools: readonly PitroomTool[], legacyExecution: boolean) {
  const byEra = LISTINGS.get(tools) ?? new Map<boolean, Record<string, unknown>[]>();
  LISTINGS.set(tools, byEra);
  const made = byEra.get(legacyExecution) ?? tools.map((t) => listed(t, legacyExecution));
  byEra.set(legacyExecution, made);
  return made;
}

/** Serves `tools` on `server`'s `tools/list` and `tools/call`. */
export function registerTools(
  server: McpServer,
  tools: readonly PitroomTool[],
  contextOf: ContextOf,
  options: RegisterToolsOptions = {},
): void {
  const low = server.server;
  const inflight = options.inflight ?? new Set();
  const byName = new Map(tools.map((t) => [t.name as string, t]));
  low.registerCapabilities({ tools: { listChanged: true } });
  low.setRequestHandler("tools/list", () => {
    return { tools: listing(tools, options.legacyExecution === true) } as never;
  });
  low.setRequestHandler("tools/call", (request, ctx) => {
    const tool = byName.get(request.params.name);
    if (tool === undefined) {
      return errorResult(new Error(`Unknown tool "${request.params.name}"`)) as never;
    }
    const parsed = tool.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      return {
        content: [{
          type: "text",
          text: `Invalid arguments for ${tool.name}: ${z.prettifyError(parsed.error)}`,
        }],
        isError: true,
      } as never;
    }
    const input = parsed.data as Record<string, unknown>;
    const toolCtx = contextOf(extraOf(ctx));
    const call = (async () =>
      await options.onCall?.(tool, input, toolCtx, ctx) ?? await answer(tool, input, toolCtx))();
    inflight.add(call);
    return call.finally(() =>
      inflight.delete(call)
    ) as never;
  });
}

/** One call answered: its text and structured content, or the error as a tool result. */
export async function answer(
  tool: PitroomTool,
  input: Record<string, unknown>,
  ctx: ToolContext,
): Promise<CallToolResult> {
  try {
    return resultOf(tool, await tool.call(input, ctx));
  } catch (error) {
    return errorResult(error);
  }
}

/** A tool's answer as its `tools/call` result. */
export function resultOf(tool: PitroomTool, answered: ToolAnswer<unknown>): CallToolResult {
  const result: CallToolResult = {
    content: [{ type: "text", text: answered.text }],
    structuredContent: tool.output.parse(answered.result) as Record<string, unknown>,
  };
  if (answered.isError) result.isError = true;
  return result;
}

/** A thrown error as a tool result: the CLI's message and hint, `isError` set. */
export function errorResult(error: unknown): CallToolResult {
  return { content: [{ type: "text", text: errorText(error) }], isError: true };
}
