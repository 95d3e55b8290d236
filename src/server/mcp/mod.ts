/**
 * server/mcp/: Pitroom as an MCP server, on the official SDK.
 *
 * ## The flow
 *
 * `createMcpServer(engine, options)` (server.ts) builds one SDK `McpServer` with no transport:
 * the tools (tools/mod.ts lists them, one module each or per family; tool.ts registers each with
 * its zod input and output schemas, derived from the engine's `runRequestSchema()` and
 * `runBriefSchema()`: a result carries each run's brief, what an agent acts on, and the client
 * the text its model reads (clients.ts); a result handing runs over records its exact bytes on
 * them, which their receipts count), the resources (resources.ts: run reports and patches, subscriptions fed
 * by `engine.subscribe`, `list_changed` from a feed over every live run) and the prompts
 * (prompts.ts, text files). A tool call runs in this process on the engine; a run it starts is
 * handed to the state dir's host (`engine.start`), so it outlives the call and the session.
 * Calls that wait (follow.ts) follow the engine's feed, send progress to a progress token and
 * end on cancellation: a cancelled `pitroom_run` stops its runs, a cancelled `pitroom_wait` only
 * stops waiting, a closed session stops nothing. Errors are tool results with `isError` and the
 * CLI's message and hint. Two transports serve it: stdio.ts (`pitroom mcp`, one server) and
 * http.ts (`pitroom mcp --http`: Hono on 127.0.0.1, Host/Origin check, bearer token, body and
 * session limits, one server and transport per session).
 */
export { createMcpServer, type McpServerOptions, type PitroomMcpServer } from "./server.ts";
export { serveStdio } from "./stdio.ts";
export { MCP_TOOL_NAMES, type McpToolName } from "./tool_names.ts";
