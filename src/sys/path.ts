/**
 * POSIX path helpers. Pitroom runs on POSIX systems only (process groups, flock, `ps`), and
 * importing `node:path` costs a noticeable share of every start-up, so the few operations it
 * needs live here.
 */

/** The separator of PATH entries. */
export const delimiter = ":";

/** True for an absolute path. */
export function isAbsolute(path: string): boolean {
  return path.startsWith("/");
}

/** What `normalize` changes: a repeated slash, a `.` or `..` part, a trailing slash. */
const ODD = /\/\/|(?:^|\/)\.\.?(?:\/|$)|.\/$/;

/** Collapses `.`, `..` and repeated slashes; keeps a leading slash. */
export function normalize(path: string): string {
  if (path === "") return ".";
  // Most paths are normal already (a repeated slash, a `.` or `..` part or a trailing slash
  // are what changes): a tree's thousands of joins skip the split.
  if (!ODD.test(path)) return path;
  const absolute = isAbsolute(path);
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out.at(-1) !== "..") out.pop();
      else if (!absolute) out.push("..");
    } else {
      out.push(part);
    }
  }
  const joined = out.join("/");
  return absolute ? `/${joined}` : joined || ".";
}

/** Joins segments and normalizes the result. */
export function join(...parts: string[]): string {
  return normalize(parts.filter((p) => p !== "").join("/"));
}

/** Resolves segments right to left into an absolute path, starting from the working directory. */
export function resolve(...parts: string[]): string {
  let path = "";
  for (let i = parts.length - 1; i >= 0 && !isAbsolute(path); i--) {
    const part = parts[i]!;
    if (part !== "") path = path === "" ? part : `${part}/${path}`;
  }
  return normalize(isAbsolute(path) ? path : `${Deno.cwd()}/${path}`);
}

/** The directory part of a path. */
export function dirname(path: string): string {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path;
  const slash = trimmed.lastIndexOf("/");
  if (slash < 0) return ".";
  if (slash === 0) return "/";
  return trimmed.slice(0, slash);
}

/** The last part of a path. */
export function basename(path: string): string {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path;
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

/** The file path of a `file:` URL. */
export function fromFileUrl(url: string | URL): string {
  const parsed = url instanceof URL ? url : new URL(url);
  if (parsed.protocol !== "file:") throw new TypeError(`not a file URL: ${parsed.href}`);
  return decodeURIComponent(parsed.pathname);
}
