/**
 * A tree's secret-looking files kept between runs (src/engine/tree/hidden_files.ts): found once
 * per tree, rules and name patterns; another tree, other patterns or an unreadable memo find
 * them again, and the list is always `findSecrets`' own.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { hiddenFiles } from "../../src/engine/tree/hidden_files.ts";
import { findSecrets } from "../../src/confine/secrets.ts";

const FILES = ["a.ts", ".env", "src/.env.local", "keys/id_rsa", "keys/id_rsa.pub", "conf/x.yml"];
const NONE = { hide: [], show: [] };

Deno.test("hidden files: listed once per tree and patterns, then read from the memo", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const memo = join(dir, "hidden-memo.json");
    let listed = 0;
    const files = (list: string[]) => () => {
      listed++;
      return Promise.resolve(list);
    };
    const expected = findSecrets(FILES, [], NONE).tracked;
    assert.deepEqual(await hiddenFiles(memo, "t1", NONE, files(FILES)), expected);
    assert.deepEqual(await hiddenFiles(memo, "t1", NONE, files(FILES)), expected);
    assert.equal(listed, 1, "the same tree is not listed again");
    const hide = { hide: ["*.yml"], show: [".env"] };
    assert.deepEqual(
      await hiddenFiles(memo, "t1", hide, files(FILES)),
      findSecrets(FILES, [], hide).tracked,
    );
    assert.equal(listed, 2, "other patterns list it again");
    assert.deepEqual(await hiddenFiles(memo, "t2", NONE, files(["b.ts"])), []);
    assert.equal(listed, 3, "another tree is listed");
    await Deno.writeTextFile(memo, "{not json");
    assert.deepEqual(await hiddenFiles(memo, "t1", NONE, files(FILES)), expected);
    assert.equal(listed, 4, "an unreadable memo is found again");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
