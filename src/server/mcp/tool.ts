/**
 * What a Pitroom MCP tool is: a name from tool_names.ts, zod schemas for its input and its
 * structured result, honest annotations, and `call`, which works on the engine and returns the
 * structured result with a short text. `registerTool` adds one to a server: the result is
 * checked against the output schema (and stripped to it), and a thrown `PitroomError` becomes a
 * tool result with `isError` and the message and hint the CLI prints.
 */
import type { z } from "zod/v4";
import type { Engine } from "../../engine/mod.ts";
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

async function answer(
  tool: PitroomTool,
  input: Record<string, unknown>,
  ctx: ToolContext,
): Promise<CallToolResult> {
  try {
    const answered = await tool.call(input, ctx);
    const result: CallToolResult = {
      content: [{ type: "text", text: answered.text }],
      structuredContent: tool.output.parse(answered.result) as Record<string, unknown>,
    };
    if (answered.isError) result.isError = true;
    return result;
  } catch (error) {
    return errorResult(error);
  }
}

/** A thrown error as a tool result: the CLI's message and hint, `isError` set. */
export function errorResult(error: unknown): CallToolResult {
  return { content: [{ type: "text", text: errorText(error) }], isError: true };
}
