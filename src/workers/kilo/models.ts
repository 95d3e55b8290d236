/**
 * Kilo's models: `kilo models --verbose` prints OpenCode's format (a `provider/model` line, then
 * the model's JSON with its `variants` as efforts): Kilo Gateway's models (`kilo/...`, free ones
 * among them) plus the providers of the user's config.
 */
import type { Runner } from "../../sys/mod.ts";
import { KILO } from "../opencode/flavour.ts";
import { opencodeModels } from "../opencode/models.ts";
import type { ModelInfo } from "../types.ts";

/** Asks the installed `kilo` for its models (quiet, stdin closed). */
export function kiloModels(runner: Runner, env: Record<string, string>): Promise<ModelInfo[]> {
  return opencodeModels(runner, env, KILO);
}
