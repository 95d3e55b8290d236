/**
 * `deno task bundle`: `dist/pitroom.mjs`, the module `deno compile --bundle` embeds, built from
 * the same stamped entry (scripts/release/entry.ts). It runs with `deno run -P=pitroom`, so the
 * tests can exercise the shipped payload under the compiled permission set. Not minified: esbuild's
 * minifier drops a `using` declaration whose value is used once (a lock then is never released),
 * so neither this nor the binary is minified (tests/dist/bundle_keeps_using_test.ts).
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { currentStamp, writeEntry } from "./release/entry.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const output = Deno.args[0] ?? join(ROOT, "dist", "pitroom.mjs");
const dir = await Deno.makeTempDir({ prefix: "pitroom-bundle-" });
try {
  const entry = join(dir, "entry.ts");
  await writeEntry(entry, await currentStamp(ROOT));
  const built = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "deno",
      `--config=${join(ROOT, "deno.json")}`,
      "-o",
      output,
      entry,
    ],
    cwd: ROOT,
  }).output();
  if (!built.success) {
    console.error(new TextDecoder().decode(built.stderr));
    Deno.exit(1);
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
