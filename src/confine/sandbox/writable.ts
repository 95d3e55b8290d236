/**
 * The config's `sandbox.writable` folders checked against the disk: each entry that is missing,
 * a file, or not absolute once `~/` is expanded is left out with one warning; `/`, the user's
 * home folder and any folder holding it are refused (left out, with a line saying why), since
 * binding one writable would make the user's own files writable to every worker.
 */
import { isAbsolute } from "../../sys/path.ts";
import { expandHome } from "./plan.ts";
import { type SandboxSetting, sandboxSetting } from "./settings.ts";

/** The folders that may be bound writable (real paths), and a warning per entry left out. */
export interface WritableFolders {
  folders: string[];
  warnings: string[];
}

function holds(folder: string, path: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}

async function realOrNull(path: string): Promise<string | null> {
  try {
    return await Deno.realPath(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
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
    const real = await realOrNull(path);
    if (real === null) {
      warnings.push(`${what} does not exist: ignored`);
      continue;
    }
    if (!(await Deno.stat(real)).isDirectory) {
      warnings.push(`${what} is a file, not a folder: ignored`);
      continue;
    }
    if (real === "/") {
      warnings.push(`${what} is refused: it would make the whole file system writable`);
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

/** The config's `sandbox` value read and its writable folders checked, with every warning. */
export async function checkedSandboxSetting(
  raw: unknown,
  home: string | undefined,
): Promise<{ setting: SandboxSetting; warnings: string[] }> {
  const { setting, warnings } = sandboxSetting(raw);
  const checked = await writableFolders(setting.writable, home);
  return {
    setting: { ...setting, writable: checked.folders },
    warnings: [...warnings, ...checked.warnings],
  };
}
