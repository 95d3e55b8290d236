/**
 * The shared worker suite (`_suite.ts`) for claude 2.1.328: the model id is the scenario name
 * (claude sends it as given in the Messages request).
 */
import { workerSuite } from "./_suite.ts";

workerSuite({
  worker: "claude",
  model: (name) => name,
});
