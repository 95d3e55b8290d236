/**
 * The audit sample (`audit` in the config, a share 0..1): a run is in it when the hash of its
 * id, read as a fraction of 2^32, is below the rate. The same run is always in or always out,
 * whichever process asks; `--audit` / `--no-audit` on the run win over the sample.
 */
import type { RunRecord } from "../../store/record.ts";

/**
 * FNV-1a, 32 bits, of a text's UTF-8 bytes, then murmur3's finaliser, so ids that differ only in
 * their last characters spread over the whole range.
 */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/** True when the run `id` is in a sample of `rate` (0 none, 1 every run). */
export function inSample(id: string, rate: number): boolean {
  if (!(rate > 0)) return false;
  if (rate >= 1) return true;
  return hash32(id) / 2 ** 32 < rate;
}

/** Whether a finished run is to be audited: its own `--audit`/`--no-audit`, else the sample. */
export function wantsAudit(record: Pick<RunRecord, "id" | "auditWanted">, rate: number): boolean {
  return record.auditWanted ?? inSample(record.id, rate);
}
