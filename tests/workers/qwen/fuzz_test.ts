import { join } from "node:path";
import { BACKENDS } from "../../../src/workers/registry.ts";
import { fuzzBackend, recordedStreams } from "../_fixtures/fuzz.ts";

Deno.test("the qwen parser and classifier make only valid events of bad input", async () => {
  const backend = BACKENDS.qwen;
  if (backend === undefined) throw new Error("no qwen backend");
  const streams = await recordedStreams(join(import.meta.dirname ?? ".", "testdata"));
  const stderr: string[] = [];
  for (const seed of [1, 2, 3]) fuzzBackend(backend, { streams, stderr, seed });
});
