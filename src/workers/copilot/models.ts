/**
 * Copilot CLI's models: the CLI lists them only from GitHub's catalogue once signed in (`/model`
 * in a session), so Pitroom names the ones its documentation names, with the efforts
 * `--reasoning-effort` accepts. With a custom provider (`COPILOT_PROVIDER_BASE_URL`) the model is
 * whatever that provider serves, given with `-m`.
 */
import type { ModelInfo } from "../types.ts";

/** The `--reasoning-effort` levels of copilot 1.0.102. */
export const COPILOT_EFFORTS: readonly string[] = [
  "none",
  "minimal",
  "low",
  "medium",
  "high",
  "xhigh",
  "max",
];

/** The models copilot's README names, and `auto` (Copilot picks). */
export function copilotModels(): Promise<ModelInfo[]> {
  return Promise.resolve(
    ["auto", "claude-sonnet-4.5", "claude-sonnet-4", "gpt-5"].map((id) => ({
      id,
      efforts: [...COPILOT_EFFORTS],
      source: "builtin" as const,
    })),
  );
}
