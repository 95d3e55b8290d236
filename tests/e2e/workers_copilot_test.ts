/**
 * The shared worker suite (`_suite.ts`) for copilot 1.0.102, driven through its custom-provider
 * variables (BYOK, `COPILOT_OFFLINE`) that the scripted model server's worker home sets: the model
 * id is the scenario name.
 */
import { join } from "node:path";
import { workerSuite } from "./_suite.ts";

workerSuite({
  worker: "copilot",
  model: (name) => name,
  asks: {
    // A path outside the working directory needs an approval nobody can give (Pitroom never
    // passes `--allow-all-paths`).
    turn: (outside) => ({ write: { path: join(outside, "asked.txt"), content: "x\n" } }),
  },
});
