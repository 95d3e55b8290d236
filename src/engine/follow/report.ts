/**
 * The one typed report of a run: the shape behind the text report, `show --json`,
 * `wait --json`, and the structured results of MCP tools and the dashboard's API. It is the run
 * record as the run folder keeps it (store/record.ts, its schema store/record_schema.ts): the record's schema is the report's
 * runtime check and JSON Schema.
 */
import { z } from "zod/v4";
import type { RunRecord } from "../../store/record.ts";
import { runRecordSchema } from "../../store/record_schema.ts";

export { runRecordSchema as runReportSchema };

/** A run report. */
export type RunReport = RunRecord;

/** The JSON Schema of a run report (for MCP tools and the dashboard's API docs). */
export function runReportJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(runRecordSchema()) as Record<string, unknown>;
}
