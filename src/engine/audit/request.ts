/**
 * The typed request of an audit (`pitroom audit`, the MCP tool `pitroom_audit`): one zod schema
 * for the TypeScript type, the runtime check and the JSON Schema MCP publishes.
 */
import { z } from "zod/v4";
import { UsageError } from "../../sys/errors.ts";

function build() {
  return z.object({
    run: z.string().min(1).describe(
      "the finished read run to audit (an id, a unique part, `last`)",
    ),
    worker: z.string().optional().describe(
      "the auditor (worker or chain, e.g. `opencode:MODEL`): never the worker and model that answered; default: the audit tier, else the run's other targets",
    ),
    fix: z.boolean().optional().describe(
      "after a disputed verdict, one correction round in the answering worker's session (default: the config's auditFix)",
    ),
    background: z.boolean().optional().describe("hand the audit to the host and return at once"),
  });
}

let built: ReturnType<typeof build> | undefined;

/**
 * The schema of an audit request, built the first time it is asked for: a zod schema costs about a
 * millisecond to build, and a command that takes no such request needs none.
 */
export function auditRequestSchema(): ReturnType<typeof build> {
  return built ??= build();
}

/** An audit request. */
export type AuditRequest = z.infer<ReturnType<typeof build>>;

/** Checks an untrusted audit request; a bad one is a usage error naming the first problem. */
export function parseAuditRequest(value: unknown): AuditRequest {
  const parsed = auditRequestSchema().safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.join(".") || "request";
  throw new UsageError(`Invalid audit request: ${where}: ${issue?.message ?? "not valid"}`);
}

/** The JSON Schema of an audit request (for the MCP tool). */
export function auditRequestJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(auditRequestSchema()) as Record<string, unknown>;
}
