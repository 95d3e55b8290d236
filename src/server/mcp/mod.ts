/**
 * server/mcp/: Pitroom as an MCP server, on the official SDK (v2), in both protocol eras.
 *
 * ## The flow
 *
 * `createMcpServer(engine, options, { era })` (server.ts) builds one SDK `McpServer` with no
 * transport: the tools (tools/mod.ts lists them, one module each or per family; tool.ts serves
 * them with their zod input and output schemas, derived from the engine's `runRequestSchema()`
 * and `runBriefSchema()`: a result carries each run's brief, what an agent acts on, and the
 * client the text its model reads (clients.ts); a result handing runs over records its exact
 * bytes on them, which their receipts count), the resources (resources.ts: run reports and patches,
 * subscriptions fed by `engine.subscribe`, `list_changed` from a feed over every live run) and
 * the prompts (prompts.ts, text files). A tool call runs in this process on the engine; a run
 * it starts is handed to the state dir's host (`engine.start`), so it outlives the call and the
 * session. Calls that wait (follow.ts) follow the engine's feed, send progress to a progress
 * token and end on cancellation: a cancelled `pitroom_run` stops its runs, a cancelled
 * `pitroom_wait` only stops waiting, a closed session stops nothing. Errors are tool results
 * with `isError` and the CLI's message and hint.
 *
 * Two eras: a 2025-11-25 client opens with `initialize` and gets a session; a 2026-07-28 client
 * sends `server/discover` and per-request `_meta` (discover.ts) and, when it declares the Tasks
 * extension, gets a task handle from `pitroom_run`, `pitroom_review` and `pitroom_audit`
 * (tasks.ts: the task is its runs, signed into its id by task_id.ts, so any server process
 * answers `tasks/get` for it). Two transports serve both: stdio.ts (`pitroom mcp`, one server
 * pinned to the client's era; stdio_front.ts answers the opening `server/discover` before the
 * SDK is loaded) and http.ts (`pitroom mcp --http`: Hono on 127.0.0.1, Host/Origin check,
 * bearer token, body and session limits; a 2025 session per client, a 2026 server per request).
 */
export {
  createMcpServer,
  type Era,
  type McpServerOptions,
  type PitroomMcpServer,
} from "./server.ts";
export { serveStdio } from "./stdio.ts";
export { taskKey } from "./task_id.ts";
export { MCP_TOOL_NAMES, type McpToolName } from "./tool_names.ts";
