/**
 * The shared worker suite (`_suite.ts`) for opencode 1.18.33: model ids are `fake/NAME`, the
 * provider the scripted model server's worker home configures.
 */
import { join } from "node:path";
import { workerSuite } from "./_suite.ts";

workerSuite({
  worker: "opencode",
  model: (name) => `fake/${name}`,
  // Each opencode run costs 5-6 s of CPU (20-30 s on a loaded CI machine), so one failure class
  // goes through the program: the rate limit, with opencode's own retries on the server's hint
  // and the cooldown. A missing model is the fallback case's (and the CLI's own e2e_test.ts); a
  // quota and a bad key are opencode's classifier on its recorded streams (classify_test.ts), and
  // the program's handling of both classes is the other workers' suites'.
  failures: ["rate_limit"],
  errors: {
    // opencode retries a 429 five times, backing off from 2 s (about a minute in all) unless the
    // server names a wait: a 1 s `retry-after` keeps the case fast and the class the same.
    rate_limit: { kind: "rate_limit", retry_after_s: 1 },
  },
  asks: {
    // A path outside the project is `external_directory`, which OpenCode asks about by default
    // (and `run` would auto-reject, ending with no answer); the user's config asks for everything.
    turn: (outside) => ({ write: { path: join(outside, "asked.txt"), content: "x\n" } }),
    async userConfig(env) {
      const file = join(env.XDG_CONFIG_HOME!, "opencode", "opencode.json");
      const config = JSON.parse(await Deno.readTextFile(file));
      await Deno.writeTextFile(file, JSON.stringify({ ...config, permission: "ask" }));
    },
  },
});
