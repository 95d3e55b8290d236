/**
 * A live run's folder as the store keeps it (its record, its active and recent markers), for the
 * tests of what the engine does with runs it did not start here: one queued for the host that no
 * supervisor took yet, one whose supervisor died (`supervised`, nobody holding its lock). The
 * runs the engine starts go through its door (engine_world.ts); this writes only the store's
 * files, as a process that crashed would have left them.
 */
import { markActive, markRecent } from "../../src/store/active.ts";
import type { StatePaths } from "../../src/store/paths.ts";
import { emptyProgress, RECORD_SCHEMA, type RunRecord } from "../../src/store/record.ts";
import { createRunDir, writeRecord } from "../../src/store/runs.ts";

let counter = 0;

/** What `placeLiveRun` makes. */
export interface LiveRun {
  cwd: string;
  /** When it was created (ms); its id names this second (UTC). */
  now: number;
  /** Running under a supervisor that died, rather than queued. */
  running?: true;
  /** The random part of its id (four hex digits). @default a counter */
  hex?: string;
  /** @default "q" */
  task?: string;
  chain?: RunRecord["chain"];
  auditOf?: RunRecord["auditOf"];
}

/** Writes a live read run (queued unless `running`); returns its record. */
export async function placeLiveRun(paths: StatePaths, options: LiveRun): Promise<RunRecord> {
  const stamp = new Date(options.now).toISOString().replace(/[-:T]/g, "").slice(0, 14);
  const hex = options.hex ?? (counter++ % 65536).toString(16).padStart(4, "0");
  const id = `${stamp.slice(0, 8)}-${stamp.slice(8)}-${hex}`;
  const record: RunRecord = {
    schemaVersion: RECORD_SCHEMA,
    id,
    state: options.running ? "running" : "queued",
    mode: "read",
    task: options.task ?? "q",
    cwd: options.cwd,
    chain: options.chain ?? [{ worker: "opencode" }],
    web: false,
    timeoutMs: 60_000,
    createdAt: options.now,
    attempts: [],
    progress: emptyProgress(),
    ...(options.running ? { supervised: true, startedAt: options.now } : {}),
    ...(options.auditOf ? { auditOf: options.auditOf } : {}),
  };
  await createRunDir(paths, id);
  await writeRecord(paths, record);
  await markActive(paths, id);
  await markRecent(paths, id);
  return record;
}
