/**
 * The door's zod schemas (requests and the report), reached through `schemas()` of mod.ts so a
 * command that takes no request loads no zod; the faces never import this module itself.
 */
export { parseRequest, runRequestJsonSchema, runRequestSchema } from "./request/request.ts";
export { runReportJsonSchema, runReportSchema } from "./follow/report.ts";
export { reviewRequestJsonSchema, reviewRequestSchema } from "./review/request.ts";
export { auditRequestJsonSchema, auditRequestSchema } from "./audit/request.ts";
export { runBriefSchema } from "./follow/brief_schema.ts";
