/**
 * What a Pitroom MCP tool is: a name from tool_names.ts, zod schemas for its input and its
 * structured result, honest annotations, and `call`, which works on the engine and returns the
 * structured result with its text (and a short line for clients that give their model the
 * structured content, clients.ts). `registerTool` adds one to a server: the result is checked
 * against the output schema (and stripped to it), and a thrown `PitroomError` becomes a tool
 * result with `isError` and the message and hint the CLI prints.
 *
 * A tool that hands runs over (run, wait, review, audit) answers with a `HandingOver`: the
 * result is rendered until each run's receipt states what was returned of it with this result
 * included (engine `settleHandover`; blanks at the end of its text make up a byte or two where
 * two sizes would each print the other), then each run's share of the result's bytes, exactly as
 * the client gets them (`JSON.stringify` of the result), is recorded on the run
 * (`engine.handedOver`).
 */
import type { z } from "zod/v4";
import type { Engine, RunReport } from "../../engine/mod.ts";
import { settleHandover } from "../../engine/present.ts";
import { errorText } from "../../sys/errors.ts";
import type { Clock } from "../../sys/mod.ts";
import type {
  CallToolResult,
  McpServer,
  RequestHandlerExtra,
  ServerNotification,
  ServerRequest,
  ToolAnnotations,
} from "./sdk.ts";
import type { McpToolName } from "./tool_names.ts";

/** What every tool call gets. */
export interface ToolContext {
  engine: Engine;
  /** The directory runs work in when the call names none (`pitroom mcp -d DIR`). */
  dir: string;
  clock: Clock;
  /** The call's own: its cancellation signal, progress token, notifications. */
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>;
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

/** What the server hands each call besides the SDK's `extra`. */
export type ContextOf = (extra: ToolContext["extra"]) => ToolContext;

/** Registers one tool on `server`; each call's promise is in `inflight` until it settles. */
export function registerTool(
  server: McpServer,
  tool: PitroomTool,
  contextOf: ContextOf,
  inflight: Set<Promise<unknown>> = new Set(),
): void {
  server.registerTool(tool.name, {
    title: tool.title,
    description: tool.description,
    inputSchema: tool.input,
    outputSchema: tool.output,
    annotations: { title: tool.title, ...tool.annotations },
  }, (input: Record<string, unknown>, extra: ToolContext["extra"]) => {
    const call = answer(tool, input, contextOf(extra));
    inflight.add(call);
    return call.finally(() => inflight.delete(call));
  });
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
  const entries = (result.structuredContent?.runs ?? []) as { id?: unknown }[];
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

async function answer(
  tool: PitroomTool,
  input: Record<string, unknown>,
  ctx: ToolContext,
): Promise<CallToolResult> {
  try {
    const answered = await tool.call(input, ctx);
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
  } catch (error) {
    return errorResult(error);
  }
}

/** A thrown error as a tool result: the CLI's message and hint, `isError` set. */
export function errorResult(error: unknown): CallToolResult {
  return { content: [{ type: "text", text: errorText(error) }], isError: true };
}
