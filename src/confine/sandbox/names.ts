/**
 * Entries of the config's `sandbox.hide` and `sandbox.show`: a path (absolute, or `~/` in the
 * home folder) names a file or folder anywhere; anything else is a name pattern for files in the
 * worker's tree: without a `/` it matches a file's name (`*.sqlite`, `.env.test`), with one the
 * path from the tree's root (`config/prod.json`). `*` matches any run of characters but `/`, `?`
 * one character. Pure.
 */

/** True when an entry names a path rather than a pattern of names in the tree. */
export function isPathEntry(entry: string): boolean {
  return entry.startsWith("/") || entry === "~" || entry.startsWith("~/");
}

const compiled = new Map<string, RegExp>();

function patternRegExp(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (re === undefined) {
    const body = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")
      .replace(/\?/g, "[^/]");
    re = new RegExp(`^${body}$`);
    compiled.set(pattern, re);
  }
  return re;
}

/** True when a tree path (relative to the root) matches a name pattern. */
export function matchesName(pattern: string, path: string): boolean {
  const clean = pattern.replace(/^\.\//, "").replace(/\/+$/, "");
  const subject = clean.includes("/") ? path.replace(/\/+$/, "") : path.slice(
    path.replace(/\/+$/, "").lastIndexOf("/") + 1,
  ).replace(/\/+$/, "");
  return patternRegExp(clean).test(subject);
}
