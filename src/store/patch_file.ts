/**
 * A run's patch file (`patch.diff`): written atomically with its digest, which the record keeps
 * (`changes.patchDigest`), so a reader tells a whole patch from one cut short or altered.
 */
import { basename, dirname, join } from "../sys/path.ts";

/** The digest of a patch's bytes: `sha256:<hex>`. */
export async function patchDigest(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  return `sha256:${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Writes a run's patch atomically (temp file + rename); returns its digest. */
export async function writePatch(path: string, bytes: Uint8Array): Promise<string> {
  const temp = join(dirname(path), `.${basename(path)}.tmp`);
  await Deno.writeFile(temp, bytes, { mode: 0o600 });
  await Deno.rename(temp, path);
  return await patchDigest(bytes);
}

/** A patch as read: its bytes (null when there is no file), and what is wrong with it. */
export interface PatchRead {
  bytes: Uint8Array | null;
  damage: string | null;
}

/**
 * Reads a run's patch and checks it against the digest its record keeps (a record without one,
 * from before digests or a run whose patch was written later, is taken as it is).
 */
export async function readPatchChecked(
  path: string,
  digest: string | undefined,
): Promise<PatchRead> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    return { bytes: null, damage: digest === undefined ? null : "missing" };
  }
  if (digest === undefined || (await patchDigest(bytes)) === digest) return { bytes, damage: null };
  return {
    bytes,
    damage: bytes.length === 0 ? "empty" : "cut short or altered (its digest in run.json differs)",
  };
}
