import { join } from "node:path";
import { BACKENDS } from "../../../src/workers/registry.ts";
import { fuzzBackend, recordedStreams } from "../_fixtures/fuzz.ts";

Deno.test("the opencode parser and classifier make only valid events of bad input", async () => {
  const backend = BACKENDS.opencode;
  if (backend === undefined) throw new Error("no opencode backend");
  const streams = await recordedStreams(join(import.meta.dirname ?? ".", "testdata"));
  const stderr = [
    "\x1b[93m\x1b[1m! \x1b[0mpermission requested: bash (touch x.txt); auto-rejecting",
    '! agent "pitroom-read" not found. Falling back to default agent',
    'timestamp=2026-01-01T00:00:00.000Z level=ERROR run=00000000 message=failed error="ProviderModelNotFoundError: Model not found: fake/x"',
  ];
  for (const seed of [1, 2, 3]) fuzzBackend(backend, { streams, stderr, seed });
});
