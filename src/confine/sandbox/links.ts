/**
 * Links in a tree that lead out of it: a symlink whose target, resolved, is not inside the
 * tree (absolute links into the user's repository, relative `../..` links, links to other
 * folders). `.git` is not walked; Pitroom's own `--link` folders are passed in as known.
 */
import { join } from "../../sys/path.ts";

/** A link leading out of the tree: its path in the tree and where it resolves to. */
export interface EscapingLink {
  path: string;
  target: string;
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
}

/** Lists the links under `root` that resolve outside it (dangling ones by their text). */
export async function escapingLinks(
  root: string,
  options: { known?: readonly string[] } = {},
): Promise<EscapingLink[]> {
  const real = await Deno.realPath(root);
  const known = new Set(options.known ?? []);
  const out: EscapingLink[] = [];
  async function walk(rel: string): Promise<void> {
    for await (const entry of Deno.readDir(join(real, rel))) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (path === ".git") continue;
      if (entry.isSymlink) {
        if (known.has(path)) continue;
        const full = join(real, path);
        let target: string;
        try {
          target = await Deno.realPath(full);
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
          const text = await Deno.readLink(full);
          target = text.startsWith("/") ? text : join(real, rel, text);
        }
        if (!inside(real, target)) out.push({ path, target });
      } else if (entry.isDirectory) {
        await walk(path);
      }
    }
  }
  await walk("");
  return out.sort((a, b) => a.path < b.path ? -1 : 1);
}
