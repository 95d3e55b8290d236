import { main } from "./src/cli/main.ts";
import { realSys } from "./src/sys/real.ts";

// The only place that ends the process: a run's pending lock waits must not keep it alive.
Deno.exit(await main(Deno.args, realSys()));
