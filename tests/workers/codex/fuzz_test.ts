import { join } from "node:path";
import { BACKENDS } from "../../../src/workers/registry.ts";
import { fuzzBackend, recordedStreams } from "../_fixtures/fuzz.ts";

Deno.test("the codex parser and classifier make only valid events of bad input", async () => {
  const backend = BACKENDS.codex;
  if (backend === undefined) throw new Error("no codex backend");
  const streams = await recordedStreams(join(import.meta.dirname ?? ".", "testdata"));
  const stderr = [
    "2026-01-01T00:00:00.000Z ERROR codex_core::tools::router: error=patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings",
    "2026-01-01T00:00:00.000Z ERROR codex_core::tools::router: error=unsupported call: web_search",
  ];
  for (const seed of [1, 2, 3]) fuzzBackend(backend, { streams, stderr, seed });
});
