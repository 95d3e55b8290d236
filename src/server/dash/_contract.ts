/**
 * Keeps the figures of api_types.ts in step with the engine: each function below fails to
 * type-check when an engine shape no longer fits its API type. (The run's own shapes need no
 * check: api_types.ts names the record's and the event union's types.)
 */
import type { SavingsTotals, Stats, WorkerModels } from "../../engine/mod.ts";
import type { ModelsResponse, SavingsResponse, StatsResponse } from "./api_types.ts";

function _stats(stats: Stats): StatsResponse {
  return stats;
}
function _savings(savings: SavingsTotals): SavingsResponse {
  return savings;
}
function _models(models: WorkerModels[]): ModelsResponse {
  return models;
}
