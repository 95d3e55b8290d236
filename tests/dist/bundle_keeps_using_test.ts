/**
 * The shipped payload keeps every `using` declaration of the source. esbuild's minifier inlined
 * `using writer = await tryLock(...)` into `if (await tryLock(...) === null)`, so the lock was
 * never released and the second patch of `apply -g` was refused; this fails if the bundle is
 * minified again.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../support/pitroom.ts";
import { tempDir } from "../support/temp.ts";

const USING = /^\s*(?:await\s+)?using\s+[A-Za-z_$][\w$]*\s*=/gm;

async function sourceCount(dir: string): Promise<number> {
  let n = 0;
  for await (const e of Deno.readDir(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) n += await sourceCount(path);
    else if (e.name.endsWith(".ts")) n += (await Deno.readTextFile(path)).match(USING)?.length ?? 0;
  }
  return n;
}

Deno.test("the bundle keeps every `using` declaration of src/", async () => {
  await using dir = await tempDir();
  const bundle = join(dir.path, "pitroom");
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-P=pitroom", "--quiet", "scripts/bundle.ts", bundle],
    cwd: REPO_ROOT,
  }).output();
  assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
  const want = await sourceCount(join(REPO_ROOT, "src"));
  assert.ok(want > 0);
  let found = 0;
  for await (const e of Deno.readDir(bundle)) {
    found += (await Deno.readTextFile(join(bundle, e.name))).match(USING)?.length ?? 0;
  }
  assert.equal(found, want);
});
