/**
 * Pitroom with every backend replaced by the scriptable fake worker, for load and fault tests of
 * real processes (the host it starts runs this same file). A task carries its worker's script
 * on its last line: `fake:[{"sleepMs":200},{"answer":"a"}]`; without one the worker answers "ok".
 */
import { main } from "../../src/cli/main.ts";
import { realSys } from "../../src/sys/real.ts";
import { BACKENDS } from "../../src/workers/registry.ts";
import { BACKEND_LOADERS } from "../../src/workers/find.ts";
import { WORKER_NAMES } from "../../src/workers/types.ts";
import { fakeBackend, type FakeStep } from "../support/fake_backend.ts";

function scriptOf(prompt: string): FakeStep[] {
  const match = /fake:(\[.*\])\s*$/m.exec(prompt);
  return match ? JSON.parse(match[1]!) : [{ answer: "ok" }];
}

for (const name of WORKER_NAMES) {
  const fake = fakeBackend((spec) => scriptOf(spec.prompt), name);
  BACKENDS[name] = fake;
  BACKEND_LOADERS[name] = () => Promise.resolve(fake);
}

Deno.exit(await main(Deno.args, realSys()));
