/**
 * Error answers: one JSON shape (`ApiError`) for every status, and the mapping of Pitroom's
 * errors to statuses (a usage error 400, a refusal 409, a damaged record 422, anything else 500).
 */
import type { Context } from "hono";
import type { ApiError } from "./api_types.ts";

/** The statuses of error answers. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 422 | 500;

/** An error answer. */
export function apiError(
  c: Context,
  status: ErrorStatus,
  code: string,
  message: string,
  hint?: string,
): Response {
  const body: ApiError = { error: { code, message, ...(hint === undefined ? {} : { hint }) } };
  c.header("Cache-Control", "no-store");
  return c.json(body, status);
}

/** The status of an error thrown by the engine. */
export function statusOf(error: { exit?: number }): ErrorStatus {
  if (error.exit === 2) return 400;
  if (error.exit === 3) return 409;
  // A file of the run is damaged: the message names it and what still works.
  if (error.exit === 7) return 422;
  return 500;
}
