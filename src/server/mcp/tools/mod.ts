/**
 * Every tool the server registers, in the order clients list them. Adding a tool is one module
 * that exports its `defineTool({...})` (name from tool_names.ts) and one line here.
 */
import type { PitroomTool } from "../tool.ts";
import { applyTool, discardTool, revertTool } from "./changes.ts";
import { infoTool } from "./info.ts";
import { runTool } from "./run.ts";
import { showTool } from "./show.ts";
import { stopTool } from "./stop.ts";
import { waitTool } from "./wait.ts";
import { reviewTool } from "./review.ts";
import { auditTool } from "./audit.ts";

/** The registered tools. */
export const TOOLS: readonly PitroomTool[] = [
  runTool,
  waitTool,
  showTool,
  infoTool,
  applyTool,
  discardTool,
  revertTool,
  stopTool,
  reviewTool,
  auditTool,
];
