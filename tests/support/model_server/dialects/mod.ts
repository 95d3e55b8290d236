/**
 * Every dialect the scripted model server speaks, in the order requests are matched.
 */
import type { Dialect } from "../dialect.ts";
import { geminiDialect } from "./gemini.ts";
import { messagesDialect } from "./messages.ts";
import { responsesDialect } from "./responses.ts";

/** The dialects, opencode's Chat Completions first once it is written. */
export const DIALECTS: readonly Dialect[] = [responsesDialect, messagesDialect, geminiDialect];
