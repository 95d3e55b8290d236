/**
 * The one typed request for a run (or a crew of runs). Its fields are declared once (fields.ts);
 * from them, zod gives the TypeScript type and the JSON Schema MCP tools publish
 * (`runRequestJsonSchema`), and check.ts the runtime check (`parseRequest`, which loads no
 * zod). The CLI parses its flags into it; `engine.start`/`engine.run` turn it into runs
 * (build.ts). Nothing else builds runs.
 */
import { z } from "zod/v4";
import { type FieldKind, MAX_TIMEOUT_MS, REQUEST_FIELDS, REQUEST_MODES } from "./fields.ts";
import { checkRequest } from "./check.ts";

function build() {
  const positive = z.number().positive();
  const kinds = {
    string: () => z.string(),
    strings: () => z.array(z.string()),
    boolean: () => z.boolean(),
    mode: () => z.enum(REQUEST_MODES),
    caps: () =>
      z.object({
        maxTokens: positive.optional(),
        maxCost: positive.optional(),
        maxSteps: positive.optional(),
      }),
    duration: () => z.number().positive().max(MAX_TIMEOUT_MS),
    count: () => z.number().int().positive(),
  } satisfies Record<FieldKind, () => z.ZodType>;
  type Kinds = typeof kinds;
  type Fields = typeof REQUEST_FIELDS;
  const shape = Object.fromEntries(
    Object.entries(REQUEST_FIELDS).map((
      [name, [kind, describe]],
    ) => [name, kinds[kind]().optional().describe(describe)]),
  ) as { [K in keyof Fields]: z.ZodOptional<ReturnType<Kinds[Fields[K][0]]>> };
  return z.object(shape);
}

let built: ReturnType<typeof build> | undefined;

/**
 * The schema of a run request, built the first time it is asked for: a zod schema costs about a
 * millisecond to build, and a command that takes no such request needs none.
 */
export function runRequestSchema(): ReturnType<typeof build> {
  return built ??= build();
}

/** A run request (what `engine.start` and `engine.run` take). */
export type RunRequest = z.infer<ReturnType<typeof build>>;

/**
 * Checks an untrusted request; a bad one is a usage error naming the first problem. The check
 * itself needs no zod (check.ts, over the same fields): the door checks with it directly.
 */
export function parseRequest(value: unknown): RunRequest {
  return checkRequest(value);
}

/** The JSON Schema of a run request (for MCP tools). */
export function runRequestJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(runRequestSchema()) as Record<string, unknown>;
}
