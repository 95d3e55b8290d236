/** Gemini CLI's recorded streams (`testdata/`) for the parser and classifier tests. */
import { join } from "node:path";
import { geminiBackend } from "../../../src/workers/gemini/mod.ts";
import { recordings } from "../_fixtures/recorded.ts";

export { type Recorded, TIME } from "../_fixtures/recorded.ts";

/** Loads and parses recording `name` with a fresh parse state. */
export const recorded = recordings(geminiBackend, join(import.meta.dirname ?? ".", "testdata"));
