/**
 * engine/audit/: another model (never the worker and model that answered) re-checks a finished
 * read answer against the repository. `runAudit` is the one entry (`engine.audit`, `pitroom audit`, the MCP tool
 * `pitroom_audit`): start.ts checks the run and creates the audit run (a real read run whose
 * task is the audit template, with an auditor chosen by choose.ts), which runs here or in the
 * background host; when it ends the lifecycle calls complete.ts, which reads the reply strictly
 * (verdict.ts), copies the verdict and the disputed claims onto the audited run and, with
 * `auditFix`, starts one correction round in the answering worker's own session. The config's
 * `audit` rate (sample.ts) starts audits by itself after read runs, in the background.
 */
import type { HeldSys } from "../../store/state.ts";
import type { RunRecord } from "../../store/record.ts";
import { resolveRun } from "../runs/select.ts";
import type { Backend } from "../../workers/types.ts";
import type { PitroomEvent } from "../../events/mod.ts";
import { executeRun } from "../run/lifecycle.ts";
import { startSupervisors } from "../host/supervisor.ts";
import { type AuditRequest, parseAuditRequest } from "./request.ts";
import { createAudit } from "./start.ts";

export { type AuditRequest, auditRequestJsonSchema, auditRequestSchema } from "./request.ts";
export { parseAudit, type ParsedAudit } from "./verdict.ts";
export { inSample } from "./sample.ts";

/** What an audit request did. */
export interface AuditOutcome {
  /** The audited run. */
  run: string;
  /** The audit run. */
  audit: string;
  /** True when the audit was handed to the host (it goes on after the call). */
  background: boolean;
  /** The audited run's record as it is now (with the verdict once a foreground audit ended). */
  record: RunRecord;
}

/** Options of `runAudit`. */
export interface RunAuditOptions {
  /** Aborting stops a foreground audit. */
  signal?: AbortSignal;
  /** Every event of a foreground audit run. */
  onEvent?(ev: PitroomEvent): void;
  /** Looks up a backend (tests hand in a scripted one). */
  backends?: (name: string) => Backend;
}

/** Audits a finished read run: in this process, or handed to the host with `background`. */
export async function runAudit(
  sys: HeldSys,
  request: AuditRequest,
  options: RunAuditOptions = {},
): Promise<AuditOutcome> {
  const checked = parseAuditRequest(request);
  // The engine resolved what was typed in the caller's scope: a full id names it anywhere.
  const id = await resolveRun(sys, checked.run, null);
  const audit = await createAudit(sys, id, {
    sampled: false,
    ...(checked.worker === undefined ? {} : { worker: checked.worker }),
    ...(checked.fix === undefined ? {} : { fix: checked.fix }),
    ...(options.backends ? { backends: options.backends } : {}),
  });
  if (checked.background) {
    await startSupervisors(sys, [audit.id]);
  } else {
    await executeRun(sys, audit.id, {
      maxParallel: audit.settings!.maxParallel,
      limits: audit.settings!.limits,
      followInline: true,
      ...(options.signal ? { stop: options.signal } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      ...(options.backends ? { backends: options.backends } : {}),
    });
  }
  return {
    run: id,
    audit: audit.id,
    background: checked.background === true,
    record: await sys.state.runs.load(id),
  };
}
