/**
 * An ACP worker's models: none Pitroom can list. Which models an agent offers is only known in a
 * session (`models` or a model option of `session/new`), so `-m` is passed on as asked (talk.ts)
 * and `pitroom models` lists none for it; efforts are the agent's business (none offered).
 */
import type { ModelInfo } from "../types.ts";

/** The models Pitroom lists for an ACP worker: none. */
export function acpModels(): Promise<ModelInfo[]> {
  return Promise.resolve([]);
}
