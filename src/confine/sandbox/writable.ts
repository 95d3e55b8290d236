/**
 * The config's `sandbox` folders checked against the disk. A `sandbox.writable` entry that is
 * missing, a file, unreadable, or not absolute once `~/` is expanded is left out with one
 * warning; `/`, the user's home folder, any folder holding it, and anything in `/proc`, `/sys` or
 * `/dev` (whose paths mean something else in every process: `/proc/self/root` is `/`) are
 * refused the same way, since binding one writable would make the user's own files writable to
 * every worker. `sandbox.hide` and `sandbox.show` entries are split into paths and tree name
 * patterns (names.ts), with the same refusals for paths.
 */
import { isAbsolute } from "../../sys/path.ts";
import { isPathEntry } from "./names.ts";
import { holds, isKernelPath, realOrNull } from "./paths.ts";
import { expandHome } from "./plan.ts";
import { type SandboxSetting, sandboxSetting } from "./settings.ts";

/** The folders that may be bound writable (real paths), and a warning per entry left out. */
export interface WritableFolders {
  folders: string[];
  warnings: string[];
}

async function statOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable) {
      return null;
    }
    throw error;
  }
}

/** True when nothing is at `path` (a dangling link included); false when it cannot be read. */
async function missing(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return false;
  } catch (error) {
    return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory;
  }
}

/** Checks each entry of `sandbox.writable`; `home` is the user's `HOME`. */
export async function writableFolders(
  entries: readonly string[],
  home: string | undefined,
): Promise<WritableFolders> {
  const folders: string[] = [];
  const warnings: string[] = [];
  const realHome = home === undefined || !isAbsolute(home) ? null : await realOrNull(home);
  for (const entry of entries) {
    const what = `Config "sandbox.writable" entry "${entry}"`;
    const path = expandHome(entry, home);
    if (!isAbsolute(path)) {
      warnings.push(
        entry.startsWith("~")
          ? `${what} needs HOME, which is not set: ignored`
          : `${what} is not an absolute or ~/ path: ignored`,
      );
      continue;
    }
    if (isKernelPath(path)) {
      warnings.push(`${what} is refused: /proc, /sys and /dev are not folders of yours`);
      continue;
    }
    const real = await realOrNull(path);
    if (real === null) {
      warnings.push(
        await missing(path) ? `${what} does not exist: ignored` : `${what} cannot be read: ignored`,
      );
      continue;
    }
    if (real === "/") {
      warnings.push(`${what} is refused: it would make the whole file system writable`);
      continue;
    }
    if (isKernelPath(real)) {
      warnings.push(`${what} is refused: it leads into ${real}, not a folder of yours`);
      continue;
    }
    if (!(await statOrNull(real))?.isDirectory) {
      warnings.push(`${what} is a file, not a folder: ignored`);
      continue;
    }
    if (realHome !== null && holds(real, realHome)) {
      warnings.push(
        `${what} is refused: it holds your home folder ${realHome}, whose files would all be writable`,
      );
      continue;
    }
    if (!folders.includes(real)) folders.push(real);
  }
  return { folders, warnings };
}

/** `sandbox.hide` or `sandbox.show` split into paths (`~/` expanded) and tree name patterns. */
export interface HiddenEntries {
  paths: string[];
  names: string[];
  warnings: string[];
}

/**
 * Checks the entries of `sandbox.hide` (or `show`, by `key`); `home` is the user's `HOME`. A
 * missing path is kept (there is nothing to hide yet); `/`, the home folder and what holds it
 * would hide everything and are refused, as are kernel paths.
 */
export async function hiddenEntries(
  entries: readonly string[],
  home: string | undefined,
  key: "hide" | "show" = "hide",
): Promise<HiddenEntries> {
  const out: HiddenEntries = { paths: [], names: [], warnings: [] };
  const realHome = home === undefined || !isAbsolute(home) ? null : await realOrNull(home);
  for (const entry of entries) {
    const what = `Config "sandbox.${key}" entry "${entry}"`;
    if (entry.trim() === "") {
      out.warnings.push(`${what} is empty: ignored`);
      continue;
    }
    if (!isPathEntry(entry)) {
      if (!out.names.includes(entry)) out.names.push(entry);
      continue;
    }
    const path = expandHome(entry, home);
    if (!isAbsolute(path)) {
      out.warnings.push(`${what} needs HOME, which is not set: ignored`);
      continue;
    }
    if (isKernelPath(path)) {
      out.warnings.push(`${what} is refused: /proc, /sys and /dev are not folders of yours`);
      continue;
    }
    if (key === "hide") {
      const real = await realOrNull(path) ?? path;
      if (real === "/" || (realHome !== null && holds(real, realHome))) {
        out.warnings.push(`${what} is refused: it would hide your whole home folder or more`);
        continue;
      }
    }
    if (!out.paths.includes(path)) out.paths.push(path);
  }
  return out;
}

/** The config's `sandbox` value read and its folders and entries checked, with every warning. */
export async function checkedSandboxSetting(
  raw: unknown,
  home: string | undefined,
): Promise<{ setting: SandboxSetting; warnings: string[] }> {
  const { setting, warnings } = sandboxSetting(raw);
  const [checked, hide, show] = await Promise.all([
    writableFolders(setting.writable, home),
    hiddenEntries(setting.hide, home, "hide"),
    hiddenEntries(setting.show, home, "show"),
  ]);
  return {
    setting: {
      ...setting,
      writable: checked.folders,
      hide: [...hide.paths, ...hide.names],
      show: [...show.paths, ...show.names],
    },
    warnings: [...warnings, ...checked.warnings, ...hide.warnings, ...show.warnings],
  };
}
