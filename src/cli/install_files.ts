/**
 * The file handling every install step shares: a user's JSON config read carefully (a file that
 * is not a JSON object is refused and left untouched), a one-time backup, and a write that keeps
 * the file's mode.
 */
import { writeTextAtomic } from "../sys/atomic.ts";
import { RefusedError } from "../sys/errors.ts";
import { exists } from "../sys/fs.ts";
import { dirname } from "../sys/path.ts";

/** A JSON config as read: its text (null: no file) and its value. */
export interface JsonConfig {
  text: string | null;
  value: Record<string, unknown>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads the JSON object at `path` ({} when missing or empty); refuses anything else (exit 3). */
export async function readJsonConfig(path: string, command: string): Promise<JsonConfig> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { text: null, value: {} };
    throw error;
  }
  if (text.trim() === "") return { text, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new RefusedError(
      "invalid_settings",
      `"${path}" is not valid JSON (${error.message}): left untouched`,
      { hint: `fix it, then run \`pitroom ${command}\` again` },
    );
  }
  if (!isObject(value)) {
    throw new RefusedError("invalid_settings", `"${path}" is not a JSON object: left untouched`);
  }
  return { text, value };
}

/** The backup path of a config file. */
export function backupPath(path: string): string {
  return `${path}.pitroom-backup`;
}

/**
 * Writes `next` over the config at `path` (made with its folder when missing), backing the old
 * text up once; true when this call made the backup.
 */
export async function writeConfig(
  path: string,
  old: string | null,
  next: string,
): Promise<boolean> {
  await Deno.mkdir(dirname(path), { recursive: true });
  let backedUp = false;
  const backup = backupPath(path);
  if (old !== null && !(await exists(backup))) {
    await Deno.writeTextFile(backup, old, { mode: 0o600 });
    backedUp = true;
  }
  const mode = old === null ? 0o600 : (await Deno.stat(path)).mode ?? 0o600;
  await writeTextAtomic(path, next, mode & 0o777);
  return backedUp;
}
