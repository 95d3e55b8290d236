/**
 * The claude dialect (placeholder until it is written).
 */
import type { Dialect } from "../dialect.ts";

/** The claude dialect. */
export const messagesDialect: Dialect = {
  name: "claude",
  matches: () => false,
  read: () => {
    throw new Error("claude dialect not written yet");
  },
  reply: () => new Response("not implemented", { status: 501 }),
  error: () => new Response("not implemented", { status: 501 }),
  workerEnv: () => Promise.resolve({}),
};
