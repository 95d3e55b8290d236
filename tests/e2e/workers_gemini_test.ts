/**
 * The shared worker suite (`_suite.ts`) for gemini 0.61.0: the model id is the scenario name (it
 * is the `models/{model}` part of the request URL).
 */
import { workerSuite } from "./_suite.ts";

workerSuite({
  worker: "gemini",
  model: (name) => name,
});
