/**
 * The typed request of an audit (`pitroom audit`, the MCP tool `pitroom_audit`): one zod schema
 * for the TypeScript type, the runtime check and the JSON Schema MCP publishes.
 */
import { z } from "zod/v4";
import { UsageError } from "../../sys/errors.ts";

/** The schema of an audit request. */
export const AuditRequestSchema = z.object({
  run: z.string().min(1).describe("the finished read run to audit (an id, a unique part, `last`)"),
  worker: z.string().optional().describe(
    "the auditor (worker or chain, e.g. `opencode:MODEL`): never the worker and model that answered; default: the audit tier, else the run's other targets",
  ),
  fix: z.boolean().optional().describe(
    "after a disputed verdict, one correction round in the answering worker's session (default: the config's auditFix)",
  ),
  background: z.boolean().optional().describe("hand the audit to the host and return at once"),
});

/** An audit request. */
export type AuditRequest = z.infer<typeof AuditRequestSchema>;

/** Checks an untrusted audit request; a bad one is a usage error naming the first problem. */
export function parseAuditRequest(value: unknown): AuditRequest {
  const parsed = AuditRequestSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.join(".") || "request";
  throw new UsageError(`Invalid audit request: ${where}: ${issue?.message ?? "not valid"}`);
}

/** The JSON Schema of an audit request (for the MCP tool). */
export function auditRequestJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(AuditRequestSchema) as Record<string, unknown>;
}
