/**
 * Pitroom's version (kept equal to deno.json's, by test) and the build it came from. A compiled
 * binary carries a stamp (commit and build date): `scripts/compile.ts` compiles an entry module
 * that sets it before loading main.ts. From source there is none, and the version says so.
 */
export const VERSION = "0.1.0";

/** Where this program came from. */
export interface BuildInfo {
  version: string;
  /** The commit it was built from, or `source` when it runs from a checkout. */
  commit: string;
  /** The build date (UTC, ISO 8601), or null from source. */
  date: string | null;
}

interface Stamp {
  commit: string;
  date: string;
}

function isStamp(value: unknown): value is Stamp {
  const v = value as Partial<Stamp> | null;
  return typeof v?.commit === "string" && typeof v.date === "string";
}

/** The global a compiled build's entry module sets before it loads the program. */
export const STAMP_GLOBAL = "PITROOM_BUILD";

/** The build stamp, if this program was compiled with one. */
export function buildInfo(): BuildInfo {
  const stamp = (globalThis as Record<string, unknown>)[STAMP_GLOBAL];
  return isStamp(stamp)
    ? { version: VERSION, commit: stamp.commit, date: stamp.date }
    : { version: VERSION, commit: "source", date: null };
}

/** `pitroom 0.1.0 (3f2a9c1, built 2026-12-01)` or `pitroom 0.1.0 (source)`. */
export function versionLine(info: BuildInfo): string {
  const from = info.date === null ? info.commit : `${info.commit}, built ${info.date.slice(0, 10)}`;
  return `pitroom ${info.version} (${from})`;
}
