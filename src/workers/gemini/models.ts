/**
 * The Gemini models gemini-cli 0.61.0 knows (its bundle's `modelDefinitions` and model-config
 * aliases), with the efforts each really takes. The CLI sets thinking per model family in its
 * built-in aliases: Gemini 3 (and Gemma 4) models extend `chat-base-3`, which sends
 * `thinkingConfig.thinkingLevel` (the bundled SDK knows `LOW` and `HIGH`; the CLI uses `HIGH`);
 * Gemini 2.5 models extend `chat-base-2.5`, which sends `thinkingConfig.thinkingBudget` (8192
 * tokens), so their efforts name budgets. The routing names (`auto`, `pro`, `flash`,
 * `flash-lite`) pick a model per request and have no effort levels. The list is maintained by
 * hand: the CLI has no command that prints its models.
 */
import type { ModelInfo } from "../types.ts";

/** How a model family takes its thinking setting. */
export type ThinkingKind = "level" | "budget" | "none";

/** Thinking levels of Gemini 3 models, as efforts, and what `thinkingLevel` each sends. */
export const THINKING_LEVELS: Readonly<Record<string, string>> = { low: "LOW", high: "HIGH" };

/**
 * Thinking budgets (tokens) of Gemini 2.5 models by effort; medium is the CLI's own default
 * (`DEFAULT_THINKING_MODE`), high the largest budget every 2.5 model takes.
 */
export const THINKING_BUDGETS: Readonly<Record<string, number>> = {
  low: 1024,
  medium: 8192,
  high: 24576,
};

const LEVEL_EFFORTS = Object.keys(THINKING_LEVELS);
const BUDGET_EFFORTS = Object.keys(THINKING_BUDGETS);

function model(id: string, kind: ThinkingKind): ModelInfo {
  if (kind === "none") return { id, efforts: [], source: "builtin" };
  return kind === "level"
    ? { id, efforts: LEVEL_EFFORTS, defaultEffort: "high", source: "builtin" }
    : { id, efforts: BUDGET_EFFORTS, defaultEffort: "medium", source: "builtin" };
}

/** Routing names (`auto` is the CLI's default model), then model ids newest first. */
export const GEMINI_MODELS: readonly ModelInfo[] = [
  model("auto", "none"),
  model("pro", "none"),
  model("flash", "none"),
  model("flash-lite", "none"),
  model("gemini-3.1-pro-preview", "level"),
  model("gemini-3-pro-preview", "level"),
  model("gemini-3.8-flash", "level"),
  model("gemini-3.5-flash", "level"),
  model("gemini-3-flash-preview", "level"),
  model("gemini-3.5-flash-lite", "level"),
  model("gemini-3.1-flash-lite", "level"),
  model("gemini-2.5-pro", "budget"),
  model("gemini-2.5-flash", "budget"),
  model("gemini-2.5-flash-lite", "budget"),
  model("gemma-4-31b-it", "level"),
  model("gemma-4-26b-a4b-it", "level"),
];

/** How `id` takes its thinking setting: by the maintained list, else by its family's name. */
export function thinkingKind(id: string): ThinkingKind {
  const known = GEMINI_MODELS.find((m) => m.id === id);
  if (known !== undefined) {
    if (known.efforts.length === 0) return "none";
    return known.efforts.includes("medium") ? "budget" : "level";
  }
  if (/^gemini-3(\.|-|$)|^gemma-4/.test(id)) return "level";
  if (/^gemini-2\.5(-|$)/.test(id)) return "budget";
  return "none";
}

/** The models gemini offers (a copy of the maintained list). */
export function geminiModels(): ModelInfo[] {
  return GEMINI_MODELS.map((m) => ({ ...m, efforts: [...m.efforts] }));
}
