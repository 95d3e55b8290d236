import assert from "node:assert/strict";
import { join } from "node:path";
import { bundleText, skillPaths } from "../../scripts/skills_bundle.ts";
import { SKILL_FILES } from "../../src/cli/skills_bundle.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("the embedded skills list is the skills/ folder (run `deno task skills:bundle` when not)", async () => {
  const file = await Deno.readTextFile(new URL("../../src/cli/skills_bundle.ts", import.meta.url));
  assert.equal(file, bundleText(await skillPaths()));
  const root = new URL("../../skills/", import.meta.url);
  for (const f of SKILL_FILES) assert.equal(f.text, await Deno.readTextFile(new URL(f.path, root)));
});

Deno.test("the bundle lists every file of a skill folder and nothing outside one", async () => {
  await using dir = await tempDir("pitroom-bundle-");
  await Deno.mkdir(join(dir.path, "a", "templates"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, "a", "SKILL.md"), "x");
  await Deno.writeTextFile(join(dir.path, "a", "templates", "t.md"), "x");
  await Deno.mkdir(join(dir.path, "plugin"));
  await Deno.writeTextFile(join(dir.path, "plugin", "p.json"), "{}");
  await Deno.writeTextFile(join(dir.path, "README.md"), "x");
  assert.deepEqual(await skillPaths(dir.path), ["a/SKILL.md", "a/templates/t.md"]);
  const text = bundleText(["a/SKILL.md"]);
  assert.match(text, /import f0 from "\.\.\/\.\.\/skills\/a\/SKILL\.md" with \{ type: "text" \};/);
  assert.match(text, /\{ path: "a\/SKILL\.md", text: f0 \},/);
});
