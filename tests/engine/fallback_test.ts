import assert from "node:assert/strict";
import { join } from "node:path";
import { cooldownUntil, nextLocalMidnight } from "../../src/engine/core/cooldown.ts";
import { handoverNote } from "../../src/engine/run/walk.ts";
import { createEngine } from "../../src/engine/mod.ts";
import { event } from "../../src/events/mod.ts";
import { UsageError } from "../../src/sys/errors.ts";
import { activeCooldowns, putCooldown } from "../../src/store/cooldown.ts";
import { statePaths } from "../../src/store/paths.ts";
import type { Target } from "../../src/store/record.ts";
import type { Backend, WorkerName } from "../../src/workers/types.ts";
import { FakeClock } from "../support/clock.ts";
import { fakeBackend, type FakeStep } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { tempDir, tempRepo } from "../support/temp.ts";

/** A chain as `worker` names it: `opencode:fake/a,codex`. */
function workerOf(chain: Target[]): string {
  return chain.map((t) => t.model === undefined ? t.worker : `${t.worker}:${t.model}`).join(",");
}

/** The clock of every run of these tests: cooldowns start and end on it, never in real time. */
const clock = new FakeClock();

async function runChain(
  chain: Target[],
  scripts: Partial<Record<WorkerName, FakeStep[]>>,
  options: {
    mode?: "read" | "write";
    before?: (stateDir: string) => Promise<void>;
    stateDir?: string;
  } = {},
) {
  await using state = await tempDir("pitroom-state-");
  await using repo = await tempRepo({ "a.txt": "one\n" });
  const stateDir = options.stateDir ?? state.path;
  const sys = testSys({ stateDir, cwd: repo.path, clock });
  await options.before?.(stateDir);
  const backends: Partial<Record<WorkerName, Backend & { prompts: string[] }>> = {};
  for (const [name, steps] of Object.entries(scripts)) {
    backends[name as WorkerName] = fakeBackend(() => steps, name as WorkerName);
  }
  const engine = createEngine(sys, { backends: (n) => backends[n as WorkerName]! });
  const record = await engine.run({
    task: "task",
    mode: options.mode ?? "read",
    worker: workerOf(chain),
    timeoutMs: 30_000,
  });
  const cooldowns = await activeCooldowns(statePaths(stateDir), clock.now());
  const files = { a: await Deno.readTextFile(join(repo.path, "a.txt")) };
  return { record, backends, cooldowns, files };
}

Deno.test("a rate-limited target moves the run to the next one and cools down for the hinted time", async () => {
  const { record, cooldowns } = await runChain(
    [{ worker: "opencode", model: "fake/a" }, { worker: "codex" }],
    {
      opencode: [{ fail: "rate_limited", retryAfterMs: 120_000 }],
      codex: [{ answer: "from codex" }],
    },
  );
  assert.equal(record.state, "done", record.message);
  assert.equal(record.answer, "from codex");
  assert.deepEqual(record.attempts.map((a) => [a.worker, a.outcome]), [
    ["opencode", "rate_limited"],
    ["codex", "ok"],
  ]);
  assert.equal(cooldowns.length, 1);
  assert.equal(cooldowns[0]?.target, "opencode:fake/a");
  assert.equal(cooldowns[0]!.until, clock.now() + 120_000);
});

Deno.test("a cooled target is skipped until its cooldown has passed on the clock, then tried again", async () => {
  await using state = await tempDir("pitroom-state-");
  const chain = [{ worker: "opencode" as const, model: "fake/a" }, { worker: "codex" as const }];
  const scripts = {
    opencode: [{ fail: "rate_limited" as const, retryAfterMs: 120_000 }],
    codex: [{ answer: "from codex" }],
  };
  const first = await runChain(chain, scripts, { stateDir: state.path });
  assert.deepEqual(first.record.attempts.map((a) => a.worker), ["opencode", "codex"]);
  await clock.advance(119_000);
  const cooling = await runChain(chain, scripts, { stateDir: state.path });
  assert.deepEqual(cooling.record.attempts.map((a) => a.worker), ["codex"]);
  assert.deepEqual(cooling.record.skipped?.map((s) => s.worker), ["opencode"]);
  await clock.advance(1_000);
  const again = await runChain(chain, scripts, { stateDir: state.path });
  assert.deepEqual(again.record.attempts.map((a) => a.worker), ["opencode", "codex"]);
  assert.equal(again.record.skipped, undefined);
});

Deno.test("a cooling target is skipped and listed, but the last target is always tried", async () => {
  const future = clock.now() + 3_600_000;
  const cool = (target: string) => async (stateDir: string) => {
    await putCooldown(statePaths(stateDir), {
      target,
      until: future,
      reason: "quota",
      message: "q",
      run: "x",
      since: clock.now(),
    });
  };
  const skipped = await runChain(
    [{ worker: "opencode", model: "fake/a" }, { worker: "codex" }],
    { opencode: [{ answer: "should not run" }], codex: [{ answer: "codex ran" }] },
    { before: cool("opencode:fake/a") },
  );
  assert.equal(skipped.record.answer, "codex ran");
  assert.deepEqual(skipped.record.skipped?.map((s) => [s.worker, s.until]), [["opencode", future]]);
  assert.equal(skipped.backends.opencode?.prompts.length, 0);

  const lastTried = await runChain(
    [{ worker: "codex" }],
    { codex: [{ answer: "tried anyway" }] },
    { before: cool("codex:default") },
  );
  assert.equal(lastTried.record.answer, "tried anyway");
});

Deno.test("the next target is told what the interrupted one did, and partial edits stay in write mode", async () => {
  const { record, backends, files } = await runChain(
    [{ worker: "opencode" }, { worker: "claude" }],
    {
      opencode: [
        { tool: "read", target: "a.txt" },
        { writeFile: "a.txt", content: "half done\n" },
        { fail: "quota" },
      ],
      claude: [{ answer: "finished" }],
    },
    { mode: "write" },
  );
  assert.equal(record.state, "done");
  assert.equal(files.a, "half done\n");
  const prompt = backends.claude!.prompts[0]!;
  assert.match(prompt, /interrupted \(quota\)/);
  assert.match(prompt, /- read a\.txt/);
  assert.match(prompt, /- a\.txt/);
  assert.deepEqual(record.changes?.files.map((f) => f.path), ["a.txt"]);
});

Deno.test("a failure that is not a fallback class ends the run without trying the next target", async () => {
  const { record, backends } = await runChain(
    [{ worker: "opencode" }, { worker: "codex" }],
    { opencode: [{ exit: 1 }], codex: [{ answer: "never" }] },
  );
  assert.equal(record.outcome, "failed");
  assert.equal(backends.codex?.prompts.length, 0);
});

Deno.test("cooldownUntil() clamps hints to 1 min..24 h and cools a daily quota until local midnight", () => {
  const now = new Date(2026, 10, 30, 14, 0, 0).getTime();
  assert.equal(cooldownUntil({ retryAfterMs: 2_000 }, now), now + 60_000);
  assert.equal(cooldownUntil({ retryAfterMs: 3 * 86_400_000 }, now), now + 86_400_000);
  assert.equal(cooldownUntil({ retryAfterMs: 300_000 }, now), now + 300_000);
  assert.equal(cooldownUntil({ daily: true }, now), nextLocalMidnight(now));
  assert.equal(new Date(nextLocalMidnight(now)).getHours(), 0);
  assert.equal(cooldownUntil({}, now), now + 20 * 60_000);
});

Deno.test("handoverNote() is null for an attempt that did nothing", () => {
  assert.equal(
    handoverNote({ worker: "opencode" }, "rate_limited", [event("worker.step", 0, {})], []),
    null,
  );
});

Deno.test("a target whose backend refuses to describe the launch is skipped as refused", async () => {
  await using state = await tempDir("pitroom-state-");
  await using repo = await tempRepo({ "a.txt": "one\n" });
  const sys = testSys({ stateDir: state.path, cwd: repo.path });
  const refusing = fakeBackend(() => [], "gemini");
  refusing.launch = () => {
    throw new UsageError('Model "x" of gemini has no effort levels');
  };
  const answering = fakeBackend(() => [{ answer: "claude answered" }], "claude");
  const engine = createEngine(sys, { backends: (n) => (n === "gemini" ? refusing : answering) });
  const record = await engine.run({
    task: "t",
    mode: "read",
    worker: "gemini,claude",
    timeoutMs: 30_000,
    effort: "high",
  });
  assert.equal(record.answer, "claude answered");
  assert.deepEqual(record.attempts.map((a) => [a.worker, a.outcome]), [["gemini", "refused"], [
    "claude",
    "ok",
  ]]);
  assert.match(record.attempts[0]?.message ?? "", /no effort levels/);
});
