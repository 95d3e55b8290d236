/**
 * Run ids: `YYYYMMDD-HHMMSS-xxxx`, local time plus 4 random hex digits, so ids sort by time.
 */
import type { HeldSys } from "../../store/state.ts";

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** A fresh run id. */
export function newRunId(sys: Pick<HeldSys, "clock" | "randomHex">): string {
  const d = new Date(sys.clock.now());
  const date = `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}`;
  const time = `${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
  return `${date}-${time}-${sys.randomHex(2)}`;
}
