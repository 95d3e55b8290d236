/**
 * `deno task bundle [DIR]`: the shipped payload in `dist/pitroom/` (or DIR), `pitroom.js` and its
 * chunks, the folder `deno compile` embeds (scripts/release/bundle.ts). It runs with
 * `deno run -P=pitroom dist/pitroom/pitroom.js`, so the tests exercise the shipped payload under
 * the compiled permission set.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { currentStamp } from "./release/entry.ts";
import { bundleInto } from "./release/bundle.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const output = Deno.args[0] ?? join(ROOT, "dist", "pitroom");
try {
  await bundleInto(ROOT, output, await currentStamp(ROOT));
} catch (e) {
  console.error(e instanceof Error ? e.message : String(e));
  Deno.exit(1);
}
