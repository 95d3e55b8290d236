/**
 * The codex dialect (placeholder until it is written).
 */
import type { Dialect } from "../dialect.ts";

/** The codex dialect. */
export const responsesDialect: Dialect = {
  name: "codex",
  matches: () => false,
  read: () => {
    throw new Error("codex dialect not written yet");
  },
  reply: () => new Response("not implemented", { status: 501 }),
  error: () => new Response("not implemented", { status: 501 }),
  workerEnv: () => Promise.resolve({}),
};
