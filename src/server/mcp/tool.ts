/**
 * What a Pitroom MCP tool is: a name from tool_names.ts, zod schemas for its input and its
 * structured result, honest annotations, and `call`, which works on the engine and returns the
 * structured result with its text (and a short line for clients that give their model the
 * structured content, clients.ts). `registerTools` serves them on a server's `tools/list` and
 * `tools/call`: the input is checked against its schema, the result against the output schema
 * (and stripped to it), and a thrown `PitroomError` becomes a tool result with `isError` and the
 * message and hint the CLI prints. A call that may become a task (tasks.ts) is handed to
 * `onCall` first.
 *
 * A tool that hands runs over (run, wait, review, audit) answers with a `HandingOver`: the
 * result is rendered until each run's receipt states what was returned of it with this result
 * included (engine `settleHandover`; blanks at the end of its text make up a byte or two where
 * two sizes would each print the other), then each run's share of the result's bytes, exactly as
 * the client gets them (`JSON.stringify` of the result), is recorded on the run
 * (`engine.handedOver`).
 */
import { z } from "zod/v4";
import type { Engine, RunReport } from "../../engine/mod.ts";
import { settleHandover } from "../../engine/present.ts";
import { errorText } from "../../sys/errors.ts";
import type { Clock } from "../../sys/mod.ts";
import type { CallToolResult, McpServer, ServerContext, ToolAnnotations } from "./sdk.ts";
import type { McpToolName } from "./tool_names.ts";

/**
 * What a call gets of its request: its cancellation signal, its `_meta`, a way to notify, and
 * the client's name when the request says it (2026-07-28 requests carry it in their `_meta`).
 */
export interface CallExtra {
  signal: AbortSignal;
  clientName?: string;
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
  /** True when the client gives its model the structured content, not the text (clients.ts). */
  readsStructured(): boolean;
}

/** A tool's answer: the structured result and its text. */
export interface ToolAnswer<T> {
  result: T;
  /** The answer as text, whole: what a client that gives its model the text reads. */
  text: string;
  /** The text for a client that gives its model the structured content. @default text */
  line?: string;
  /** A result that reports a failure (a refused run), not a protocol error. */
  isError?: boolean;
}

/**
 * An answer that hands runs over: `render` gives it for the runs as they are to be shown (each
 * run's receipt saying what was returned of it, this result included).
 */
export interface HandingOver<T> {
  runs: readonly RunReport[];
  render(shown: RunReport[]): ToolAnswer<T>;
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
  call(
    input: z.infer<I>,
    ctx: ToolContext,
  ): Promise<ToolAnswer<z.input<O>> | HandingOver<z.input<O>>>;
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
  const info = request.mcpReq.envelope?.["io.modelcontextprotocol/clientInfo" as never] as
    | { name?: unknown }
    | undefined;
  return {
    signal: request.mcpReq.signal,
    ...(typeof info?.name === "string" ? { clientName: info.name } : {}),
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
    return await finish(tool, await tool.call(input, ctx), ctx);
  } catch (error) {
    return errorResult(error);
  }
}

/** A tool's answer as the result the client gets; runs handed over are recorded on them. */
export async function finish(
  tool: PitroomTool,
  answered: ToolAnswer<unknown> | HandingOver<unknown>,
  ctx: ToolContext,
): Promise<CallToolResult> {
  if (!("render" in answered)) return callResult(tool, answered, ctx);
  const { result, shares } = settleHandover(answered.runs, {
    render: (shown) => callResult(tool, answered.render(shown), ctx),
    size: resultBytes,
    parts: (result) => partsIn(result, answered.runs),
    pad: padded,
  });
  await ctx.engine.handedOver([...shares].map(([id, bytes]) => ({ id, bytes })), {
    via: "mcp",
    what: tool.name,
  });
  return result;
}

/** A tool's answer as the result the client gets. */
function callResult(tool: PitroomTool, answered: ToolAnswer<unknown>, ctx: ToolContext) {
  // A result that reports a failure keeps its whole text: a client may show an error's text.
  const short = ctx.readsStructured() && !answered.isError;
  const text = short ? answered.line ?? answered.text : answered.text;
  const result: CallToolResult = {
    content: [{ type: "text", text }],
    structuredContent: tool.output.parse(answered.result) as Record<string, unknown>,
  };
  if (answered.isError) result.isError = true;
  return result;
}

const encoder = new TextEncoder();

/** The bytes a result hands the client: its JSON, as the transport writes it, in UTF-8. */
export function resultBytes(result: CallToolResult): number {
  return encoder.encode(JSON.stringify(result)).length;
}

/** Each run's part of a result: the size of its entry among the result's runs. */
function partsIn(result: CallToolResult, runs: readonly RunReport[]): Map<string, number> {
  const content = result.structuredContent as { runs?: { id?: unknown }[] } | undefined;
  const entries = content?.runs ?? [];
  return new Map(runs.map((r) => {
    const entry = entries.find((e) => e.id === r.id);
    return [r.id, entry === undefined ? 0 : encoder.encode(JSON.stringify(entry)).length];
  }));
}

/** The result with blanks at the end of its text (what a model reads there is unchanged). */
function padded(result: CallToolResult, bytes: number): CallToolResult {
  const [first, ...rest] = result.content;
  if (first?.type !== "text") return result;
  return { ...result, content: [{ ...first, text: first.text + " ".repeat(bytes) }, ...rest] };
}

/** A thrown error as a tool result: the CLI's message and hint, `isError` set. */
export function errorResult(error: unknown): CallToolResult {
  return { content: [{ type: "text", text: errorText(error) }], isError: true };
}
