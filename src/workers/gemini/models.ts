/**
 * The Gemini models gemini-cli 0.61.0 knows (its bundle's model table), with the thinking levels
 * each takes as efforts: Gemini 3 models take a thinking level (`low`, `high`; the flash models
 * also `minimal` and `medium`), Gemini 2.5 models a thinking budget, named here by level. The list
 * is maintained by hand: the CLI has no command that prints its models.
 */
import type { ModelInfo } from "../types.ts";

const GEMINI_3_PRO = ["low", "high"];
const GEMINI_3_FLASH = ["minimal", "low", "medium", "high"];
const GEMINI_25 = ["low", "medium", "high"];
const GEMINI_25_FLASH = ["none", "low", "medium", "high"];

/** Model ids and their efforts, newest first; `gemini-2.5-pro` is the CLI's default model. */
export const GEMINI_MODELS: readonly ModelInfo[] = [
  { id: "gemini-3.1-pro-preview", efforts: GEMINI_3_PRO, defaultEffort: "high", source: "builtin" },
  { id: "gemini-3-pro-preview", efforts: GEMINI_3_PRO, defaultEffort: "high", source: "builtin" },
  { id: "gemini-3.5-flash", efforts: GEMINI_3_FLASH, defaultEffort: "high", source: "builtin" },
  {
    id: "gemini-3-flash-preview",
    efforts: GEMINI_3_FLASH,
    defaultEffort: "high",
    source: "builtin",
  },
  {
    id: "gemini-3.1-flash-lite",
    efforts: GEMINI_3_FLASH,
    defaultEffort: "minimal",
    source: "builtin",
  },
  { id: "gemini-2.5-pro", efforts: GEMINI_25, defaultEffort: "medium", source: "builtin" },
  { id: "gemini-2.5-flash", efforts: GEMINI_25_FLASH, defaultEffort: "medium", source: "builtin" },
  {
    id: "gemini-2.5-flash-lite",
    efforts: GEMINI_25_FLASH,
    defaultEffort: "none",
    source: "builtin",
  },
];

/** The models gemini offers (a copy of the maintained list). */
export function geminiModels(): ModelInfo[] {
  return GEMINI_MODELS.map((model) => ({ ...model, efforts: [...model.efforts] }));
}
