/**
 * Models claude offers. claude cannot list its models, so this is a maintained table: the aliases
 * claude 2.1.328 resolves (`sonnet` -> claude-sonnet-5-5, `opus` -> claude-opus-5-5, `haiku` ->
 * claude-haiku-5-5, `fable` -> claude-fable-5-2, checked from the model id it sends) and full ids
 * its bundle names. `--effort` takes the same levels for all; a model without effort support
 * ignores it (older ids send no `output_config`).
 */
import type { ModelInfo } from "../types.ts";

/** Effort levels of `claude --effort`. */
export const CLAUDE_EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;

/** Model ids and aliases, newest first. */
export const CLAUDE_MODEL_IDS = [
  "sonnet",
  "opus",
  "haiku",
  "fable",
  "claude-opus-5-5",
  "claude-sonnet-5-5",
  "claude-haiku-5-5",
  "claude-fable-5-2",
  "claude-opus-4-8",
  "claude-opus-4-7",
  "claude-opus-4-6",
  "claude-sonnet-4-6",
  "claude-opus-4-5",
  "claude-sonnet-4-5",
  "claude-haiku-4-5",
  "claude-opus-4-1",
] as const;

/** The built-in model list of claude. */
export function claudeModels(): ModelInfo[] {
  return CLAUDE_MODEL_IDS.map((id) => ({
    id,
    efforts: [...CLAUDE_EFFORTS],
    source: "builtin" as const,
  }));
}
