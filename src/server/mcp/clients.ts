/**
 * Which part of a tool result a client gives its model. A result carries a text and structured
 * content; the pinned clients (tests/e2e/mcp_clients_test.ts checks it from the model server's
 * request log) give their model one of them: Claude Code and Codex the structured content's
 * JSON, Gemini CLI the text. For a client named here the text is one short line (its model never
 * reads it, and the result is not twice its size); every other client gets the whole text too,
 * as the MCP spec asks of a result with structured content.
 */

/** The `clientInfo.name`s (sent at `initialize`) of clients that give their model the structured content. */
export const STRUCTURED_READERS: readonly string[] = ["claude-code", "codex-mcp-client"];

/** True when a client of this name gives its model the structured content, not the text. */
export function readsStructured(clientName: string | undefined): boolean {
  return clientName !== undefined && STRUCTURED_READERS.includes(clientName);
}
