/** The MCP server's tool names: one list, which the server registers and the skills' drift test checks. */
export const MCP_TOOL_NAMES = [
  "pitroom_run",
  "pitroom_wait",
  "pitroom_show",
  "pitroom_info",
  "pitroom_apply",
  "pitroom_discard",
  "pitroom_revert",
  "pitroom_stop",
  "pitroom_review",
  "pitroom_audit",
] as const;

export type McpToolName = typeof MCP_TOOL_NAMES[number];
