/**
 * Errors in OpenAI's shape (`{error:{message,type,param,code}}`, with `retry-after` and
 * `retry-after-ms` headers), shared by the Chat Completions and Responses dialects.
 */
import type { ErrorKind, ErrorReply } from "../dialect.ts";

type Shape = { type: string; code: string | null; message: string };

function shapes(apiKey: string): Record<ErrorKind, (model: string) => Shape> {
  return {
    model_not_found: (model) => ({
      type: "invalid_request_error",
      code: "model_not_found",
      message: `The model \`${model}\` does not exist or you do not have access to it.`,
    }),
    rate_limit: (model) => ({
      type: "requests",
      code: "rate_limit_exceeded",
      message:
        `Rate limit reached for ${model} on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.`,
    }),
    quota: () => ({
      type: "insufficient_quota",
      code: "insufficient_quota",
      message:
        "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
    }),
    quota_daily: (model) => ({
      type: "requests",
      code: "rate_limit_exceeded",
      message:
        `Rate limit reached for ${model} on requests per day (RPD): Limit 200, Used 200, Requested 1. Please try again in 7m12s.`,
    }),
    auth: () => ({
      type: "invalid_request_error",
      code: "invalid_api_key",
      message:
        `Incorrect API key provided: ${apiKey}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    }),
    overloaded: () => ({
      type: "server_error",
      code: null,
      message: "The engine is currently overloaded, please try again later.",
    }),
    server: () => ({
      type: "server_error",
      code: null,
      message: "The server had an error while processing your request. Sorry about that!",
    }),
  };
}

/** Builds an OpenAI error response; `apiKey` is the key the CLI sent, quoted in an auth error. */
export function openaiError(error: ErrorReply, options: { apiKey: string }): Response {
  const shape = shapes(options.apiKey)[error.kind](error.model);
  const message = error.message === "" ? shape.message : error.message;
  const headers = new Headers({ "content-type": "application/json" });
  if (error.retryAfterS !== undefined) {
    headers.set("retry-after", String(error.retryAfterS));
    headers.set("retry-after-ms", String(error.retryAfterS * 1000));
  }
  const body = { error: { message, type: shape.type, param: null, code: shape.code } };
  return new Response(JSON.stringify(body), { status: error.status, headers });
}
