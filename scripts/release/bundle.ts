/**
 * The shipped payload: the stamped entry (entry.ts) bundled by `deno bundle` with code
 * splitting into one folder, `pitroom.js` and the chunks it loads. A command loads only its own
 * chunks, as it does from source: the single 3 MB module this replaced was parsed whole at every
 * start (`--version` 345 ms against 192 ms split, benchmarks/startup/README.md). `deno compile`
 * embeds this folder (scripts/compile.ts); `deno run -P=pitroom DIR/pitroom.js` runs it under the
 * compiled permission set, as the tests do. Not minified: esbuild's minifier drops a `using`
 * declaration whose value is used once (tests/dist/bundle_keeps_using_test.ts).
 */
import { basename, dirname, join } from "node:path";
import { type Stamp, writeEntry } from "./entry.ts";

/** The module a bundle folder starts at. */
export const BUNDLE_ENTRY = "pitroom.js";

/**
 * Bundles the program into `outDir` (replaced whole, so no chunk of an older build is left in
 * it): built in a sibling folder first, so a failed build leaves the old one as it was.
 * Throws with the bundler's message when it fails.
 */
export async function bundleInto(root: string, outDir: string, stamp: Stamp): Promise<void> {
  await Deno.mkdir(dirname(outDir), { recursive: true });
  const work = await Deno.makeTempDir({ dir: dirname(outDir), prefix: `.${basename(outDir)}-` });
  try {
    const entry = join(work, BUNDLE_ENTRY.replace(/\.js$/, ".ts"));
    await writeEntry(entry, stamp);
    const built = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--platform",
        "deno",
        "--code-splitting",
        `--config=${join(root, "deno.json")}`,
        "--outdir",
        join(work, "out"),
        entry,
      ],
      cwd: root,
      stdin: "null",
    }).output();
    if (!built.success) {
      throw new Error(`deno bundle failed:\n${new TextDecoder().decode(built.stderr)}`);
    }
    await Deno.remove(outDir, { recursive: true }).catch((e) => {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    });
    await Deno.rename(join(work, "out"), outDir);
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => undefined);
  }
}
