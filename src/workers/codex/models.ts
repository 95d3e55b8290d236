/**
 * The models codex offers: `codex debug models` prints its catalogue as JSON
 * (`{models: [{slug, supported_reasoning_levels: [{effort}], default_reasoning_level,
 * visibility}]}`); hidden entries (`visibility: "hide"`) are left out.
 */
import type { Runner } from "../../sys/mod.ts";
import type { ModelInfo } from "../types.ts";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Parses the output of `codex debug models` (pure); throws on text that is not the catalogue. */
export function parseCodexModels(text: string): ModelInfo[] {
  const value: unknown = JSON.parse(text);
  if (!isObject(value) || !Array.isArray(value.models)) {
    throw new TypeError("codex debug models: no models list");
  }
  const out: ModelInfo[] = [];
  for (const model of value.models) {
    if (!isObject(model) || typeof model.slug !== "string" || model.visibility === "hide") continue;
    const levels = Array.isArray(model.supported_reasoning_levels)
      ? model.supported_reasoning_levels
      : [];
    const efforts = levels
      .map((level) => isObject(level) && typeof level.effort === "string" ? level.effort : null)
      .filter((effort): effort is string => effort !== null);
    out.push({
      id: model.slug,
      efforts,
      ...(typeof model.default_reasoning_level === "string"
        ? { defaultEffort: model.default_reasoning_level }
        : {}),
      source: "cli",
    });
  }
  return out;
}

/** Asks the installed codex for its models; an empty list when codex cannot tell. */
export async function codexModels(
  runner: Runner,
  env: Record<string, string>,
): Promise<ModelInfo[]> {
  const result = await runner.run(["codex", "debug", "models"], { env, stdin: { kind: "null" } });
  if (result.code !== 0) return [];
  try {
    return parseCodexModels(result.stdout);
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof TypeError) return [];
    throw error;
  }
}
