/**
 * Every dialect the scripted model server speaks, in the order requests are matched.
 */
import type { Dialect } from "../dialect.ts";
import { chatDialect } from "./chat.ts";
import { geminiDialect } from "./gemini.ts";
import { messagesDialect } from "./messages.ts";
import { responsesDialect } from "./responses.ts";

/** The dialects: opencode's Chat Completions, codex's Responses, claude's Messages, gemini. */
export const DIALECTS: readonly Dialect[] = [
  chatDialect,
  responsesDialect,
  messagesDialect,
  geminiDialect,
];
