/** A panel's events (pure): the loaded list and what the stream brought meanwhile. */
import type { PitroomEvent } from "../api/types.ts";

/** Events that came on the stream while the list was loading, without the ones it has. */
export function mergeEvents(loaded: PitroomEvent[], streamed: PitroomEvent[]): PitroomEvent[] {
  const known = new Set(loaded.map((e) => JSON.stringify(e)));
  return [...loaded, ...streamed.filter((e) => !known.has(JSON.stringify(e)))];
}
