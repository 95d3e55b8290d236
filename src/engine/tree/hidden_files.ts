/**
 * A tree's secret-looking files (the ones a sandbox hides or a read view leaves out), kept
 * between runs: a tree id names its files exactly, so the list found for one tree with one set
 * of rules and name patterns holds for as long as they are the same. A run in an unchanged tree
 * then neither lists the tree's 30,000 files nor tests their names again. One list is kept per
 * repository (the last tree's); a failure to keep it only costs speed.
 */
import { isHiddenPath, type SecretPatterns } from "../../confine/secrets.ts";
import { SECRET_RULES } from "../../confine/secret_names.ts";

interface Kept {
  key: string;
  files: string[];
}

/**
 * The files of `tree` hidden by `patterns` (and the built-in rules), from the list kept at
 * `memo`, else from `files()`, then kept there.
 */
export async function hiddenFiles(
  memo: string,
  tree: string,
  patterns: SecretPatterns,
  files: () => Promise<readonly string[]>,
): Promise<string[]> {
  const key = JSON.stringify([tree, patterns.hide, patterns.show, SECRET_RULES]);
  try {
    const kept = JSON.parse(await Deno.readTextFile(memo)) as Kept;
    if (kept.key === key && Array.isArray(kept.files)) return kept.files;
  } catch {
    // None kept yet, or unreadable: found again.
  }
  const found = (await files()).filter((path) => isHiddenPath(path, patterns));
  const draft = `${memo}.${crypto.randomUUID()}`;
  try {
    await Deno.writeTextFile(draft, JSON.stringify({ key, files: found } satisfies Kept), {
      mode: 0o600,
    });
    await Deno.rename(draft, memo);
  } catch {
    await Deno.remove(draft).catch(() => undefined);
  }
  return found;
}
