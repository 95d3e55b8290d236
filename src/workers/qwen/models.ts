/**
 * Qwen Code's models. qwen 0.24.4 cannot list them (its `/model` dialog reads the providers of
 * the user's settings), so this is a maintained table of the ids its bundle names: `coder-model`
 * (the model of its Qwen OAuth login) and the Qwen 3.x models of Alibaba Cloud Model Studio. Any
 * other id the user's provider serves works with `-m` as it is. The effort is qwen's
 * `model.reasoningEffort` setting, which every provider maps and clamps to what the model takes.
 */
import type { ModelInfo } from "../types.ts";
import { QWEN_EFFORTS } from "./argv.ts";

/** Model ids, the login's model first, then newest first. */
export const QWEN_MODEL_IDS = [
  "coder-model",
  "qwen3.8-max",
  "qwen3.8-flash",
  "qwen3.7-max",
  "qwen3.7-plus",
  "qwen3.6-plus",
  "qwen3.6-flash",
  "qwen3.5-plus",
  "qwen3-coder-plus",
] as const;

/** The models qwen offers (a copy of the maintained list). */
export function qwenModels(): ModelInfo[] {
  return QWEN_MODEL_IDS.map((id) => ({
    id,
    efforts: [...QWEN_EFFORTS],
    source: "builtin" as const,
  }));
}
