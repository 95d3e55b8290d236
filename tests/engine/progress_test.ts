/**
 * The progress fold over recorded streams of every backend: one refusal is one denied tool call,
 * counted once in `progress.denied`, whichever way the CLI reports it (a stream event, a stderr
 * line, or both).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { WorkerEvent } from "../../src/events/mod.ts";
import { gather, type Gathered } from "../../src/engine/run/progress.ts";
import { emptyProgress } from "../../src/store/record.ts";
import { BACKENDS } from "../../src/workers/registry.ts";
import type { WorkerName } from "../../src/workers/types.ts";
import { endFromNote } from "../workers/_fixtures/note.ts";
import { readAt } from "../support/line_time.ts";

const TESTDATA = join(import.meta.dirname ?? ".", "..", "workers");

/** Parses a recording's stdout, then its stderr, as an attempt would. */
async function events(worker: WorkerName, name: string): Promise<WorkerEvent[]> {
  const backend = BACKENDS[worker];
  assert.ok(backend);
  const dir = join(TESTDATA, worker, "testdata");
  const lines = (await Deno.readTextFile(join(dir, `${name}.jsonl`))).split("\n")
    .filter((line) => line.trim() !== "");
  const { stderr } = endFromNote(await Deno.readTextFile(join(dir, `${name}.txt`)), name);
  const state = backend.newState();
  return [
    ...lines.flatMap((line) => backend.parse(line, state, readAt(1))),
    ...stderr.flatMap((line) => backend.parseStderr(line, state, readAt(1))),
  ];
}

const REFUSING: [WorkerName, string, number][] = [
  ["opencode", "denied_edit", 3],
  ["opencode", "ask_rejected", 1],
  ["codex", "read-trespass", 1],
  ["claude", "read_refusals", 3],
  ["gemini", "read_denied", 4],
  ["gemini", "read_outside", 2],
];

for (const [worker, name, refusals] of REFUSING) {
  Deno.test(`gather() counts each refusal of ${worker} ${name} once as a denied tool call`, async () => {
    const evs = await events(worker, name);
    const gathered: Gathered = { progress: emptyProgress(), texts: [] };
    for (const ev of evs) gather(gathered, ev);
    const denials = evs.filter((e) => e.type === "worker.denied").length;
    const deniedCalls = evs.filter((e) => e.type === "worker.tool_call" && e.status === "denied");
    assert.equal(denials, refusals, "one worker.denied per refusal");
    assert.equal(deniedCalls.length, refusals, "one denied tool call per refusal");
    assert.equal(gathered.progress.denied, refusals);
    assert.ok(gathered.progress.tools >= refusals);
  });
}

Deno.test("gather() leaves denied out of a run with no refusal", async () => {
  const gathered: Gathered = { progress: emptyProgress(), texts: [] };
  for (const ev of await events("claude", "read_answer")) gather(gathered, ev);
  assert.equal(gathered.progress.denied, undefined);
  assert.ok(gathered.progress.tools > 0);
});
