/**
 * The MCP SDK (v2: `@modelcontextprotocol/server`), as the server uses it: one module re-exports
 * what we need, so the rest of server/mcp/ names no package.
 */
export {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceTemplate,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
export type {
  CallToolResult,
  McpRequestContext,
  ServerContext,
  StandardSchemaWithJSON,
  ToolAnnotations,
  Transport,
} from "@modelcontextprotocol/server";
export { serveStdio } from "@modelcontextprotocol/server/stdio";
