/**
 * The gemini dialect (placeholder until it is written).
 */
import type { Dialect } from "../dialect.ts";

/** The gemini dialect. */
export const geminiDialect: Dialect = {
  name: "gemini",
  matches: () => false,
  read: () => {
    throw new Error("gemini dialect not written yet");
  },
  reply: () => new Response("not implemented", { status: 501 }),
  error: () => new Response("not implemented", { status: 501 }),
  workerEnv: () => Promise.resolve({}),
};
