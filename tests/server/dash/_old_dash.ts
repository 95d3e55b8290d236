/**
 * A dashboard as an older Pitroom ran it, for process_test.ts: it serves and records itself
 * (`dash.json`, `dash.key`) but holds no life lock (`dash.life`). Prints its record as one JSON
 * line, then serves until SIGTERM (which it says on stderr as it goes).
 */
import { realSys } from "../../../src/sys/real.ts";
import { serveDashboard } from "../../../src/server/dash/serve.ts";
import { writeDashRecord } from "../../../src/server/dash/record.ts";

const sys = realSys();
const stop = new AbortController();
Deno.addSignalListener("SIGTERM", () => stop.abort(new Error("stopped")));
const served = serveDashboard(sys, { idleMs: 600_000, signal: stop.signal });
const record = {
  schemaVersion: 1 as const,
  pid: sys.pid,
  port: served.port,
  address: served.address,
  instance: served.instance,
  startedAt: Date.now(),
};
await writeDashRecord(sys, record, served.key);
console.log(JSON.stringify(record));
await served.finished;
Deno.exit(0);
