/**
 * Where an installed CLI's version falls against the versions its backend was tested with
 * (`Backend.tested`): inside, older, newer, or a version that cannot be read. Only `doctor` and
 * the setup commands load this; running a worker does not.
 */
import type { TestedVersions } from "./types.ts";

/** How an installed version compares with the tested ones. */
export type VersionFit = "inside" | "older" | "newer" | "unparseable";

interface Parsed {
  core: [number, number, number];
  /** The pre-release identifiers (`1.2.0-nightly.3` -> ["nightly", "3"]), empty for a release. */
  pre: string[];
}

const SEMVER =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/;

function parse(version: string): Parsed | null {
  const m = SEMVER.exec(version.trim());
  if (m === null) return null;
  const core = [Number(m[1]), Number(m[2]), Number(m[3])] as [number, number, number];
  if (!core.every(Number.isSafeInteger)) return null;
  return { core, pre: m[4] === undefined ? [] : m[4].split(".") };
}

function compareIdentifiers(a: string, b: string): number {
  const an = /^\d+$/.test(a), bn = /^\d+$/.test(b);
  if (an && bn) return Math.sign(Number(a) - Number(b));
  if (an !== bn) return an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function compare(a: Parsed, b: Parsed): number {
  for (let i = 0; i < 3; i++) {
    const d = a.core[i]! - b.core[i]!;
    if (d !== 0) return Math.sign(d);
  }
  // A pre-release comes before its release (semver 11): 0.61.0-nightly.1 < 0.61.0.
  if (a.pre.length === 0 || b.pre.length === 0) {
    return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  }
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const d = compareIdentifiers(a.pre[i]!, b.pre[i]!);
    if (d !== 0) return d;
  }
  return Math.sign(a.pre.length - b.pre.length);
}

/** Compares two semver versions (-1, 0, 1), or null when either cannot be read (pure). */
export function compareVersions(a: string, b: string): number | null {
  const pa = parse(a), pb = parse(b);
  return pa === null || pb === null ? null : compare(pa, pb);
}

/** Where `version` falls against `tested` (pure). */
export function versionFit(tested: TestedVersions, version: string): VersionFit {
  const low = compareVersions(version, tested.min);
  const high = compareVersions(version, tested.max);
  if (low === null || high === null) return "unparseable";
  if (low < 0) return "older";
  if (high > 0) return "newer";
  return "inside";
}

/** The tested range for people: `0.169.0`, or `0.169.0 to 0.171.0` (pure). */
export function testedRangeText(tested: TestedVersions): string {
  return tested.min === tested.max ? tested.min : `${tested.min} to ${tested.max}`;
}
