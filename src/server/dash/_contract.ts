/**
 * Keeps api_types.ts (which imports nothing, for the page) in step with the engine: each
 * function below fails to type-check when an engine shape no longer fits its API type.
 */
import type {
  PitroomEvent,
  RunReport,
  SavingsTotals,
  SearchHit,
  Stats,
  WorkerModels,
} from "../../engine/mod.ts";
import type {
  ApiEvent,
  ApiReport,
  HistoryHit,
  ModelsResponse,
  SavingsResponse,
  StatsResponse,
} from "./api_types.ts";

function _event(ev: PitroomEvent): ApiEvent {
  return ev;
}
function _report(report: RunReport): ApiReport {
  return report;
}
function _hit(hit: SearchHit): HistoryHit {
  return hit;
}
function _stats(stats: Stats): StatsResponse {
  return stats;
}
function _savings(savings: SavingsTotals): SavingsResponse {
  return savings;
}
function _models(models: WorkerModels[]): ModelsResponse {
  return models;
}
