/** Qwen Code's recorded streams (`testdata/`) for the parser and classifier tests. */
import { join } from "node:path";
import { qwenBackend } from "../../../src/workers/qwen/mod.ts";
import { recordings } from "../_fixtures/recorded.ts";

export { type Recorded, TIME } from "../_fixtures/recorded.ts";

/** Loads and parses recording `name` with a fresh parse state. */
export const recorded = recordings(qwenBackend, join(import.meta.dirname ?? ".", "testdata"));
