/**
 * bare_dirs.ts on a real tree: the folders that hold no snapshot file are found by link counts
 * alone on a file system that counts subfolders, and a count that cannot be trusted hands over
 * to git's listing instead of guessing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { bareByLinks, bareFromListing, type FolderFacts } from "../../src/vcs/bare_dirs.ts";
import { put, tempDir } from "./_helpers.ts";

async function tree(root: string) {
  await put(root, "src/a.ts", "a\n");
  await put(root, "src/lib/b.ts", "b\n");
  await Deno.mkdir(join(root, ".git"));
  for (const dir of ["src/empty", "top-empty/deeper", "new/sub/empty"]) {
    await Deno.mkdir(join(root, dir), { recursive: true });
  }
  await put(root, "new/file.txt", "new\n");
  await put(root, "logs/a.log", "ignored only\n");
  await put(root, "new/node_modules/x.js", "ignored folder\n");
}

function facts(root: string): FolderFacts {
  return {
    root,
    tracked: new Map([["", ["src"]], ["src", ["lib"]], ["src/lib", []]]),
    untracked: ["new/file.txt"],
    ignored: ["logs/a.log", "new/node_modules/"],
  };
}

const EXPECTED = ["logs", "new/sub", "src/empty", "top-empty"];

Deno.test("bareByLinks() finds the bare folders by link counts, reading only folders with more", async () => {
  await using tmp = await tempDir();
  await tree(tmp.path);
  assert.deepEqual(bareByLinks(facts(tmp.path)), EXPECTED);
});

Deno.test("bareByLinks() gives up when a folder has fewer links than subfolders known", async () => {
  await using tmp = await tempDir();
  await tree(tmp.path);
  const claimed = facts(tmp.path);
  // As a file system that does not count subfolders (btrfs gives 1) would look.
  claimed.tracked.set("src/lib", ["ghost"]);
  claimed.tracked.set("src/lib/ghost", []);
  assert.equal(bareByLinks(claimed), null);
});

Deno.test("bareFromListing() gives the same folders from git's listing of the user's index", async () => {
  await using tmp = await tempDir();
  await tree(tmp.path);
  // What `git ls-files --others --directory --exclude-standard` names before the add.
  const listed = ["logs/", "new/", "src/empty/", "top-empty/"].map((entry) => `${entry}\0`).join(
    "",
  );
  assert.deepEqual(await bareFromListing(facts(tmp.path), listed), EXPECTED);
});
