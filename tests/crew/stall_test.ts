/**
 * A background run whose worker goes silent past the config's `stallAfter` shows as stalled in
 * `status` (text and JSON) and in `watch` (`--json` and `--brief`), through the real program and
 * its host, and goes on to its answer once the worker moves: nothing stops it. Real time, with a
 * short stall time and bounded waits.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { waitFor } from "../support/temp.ts";
import { crewWorld, task } from "./_world.ts";

/** Reads a child's stdout line by line. */
async function* lines(child: Deno.ChildProcess): AsyncGenerator<string> {
  let rest = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop()!;
    yield* parts;
  }
  if (rest !== "") yield rest;
}

/** The lines up to the first one `until` accepts (which is the last one given). */
async function readUntil(
  it: AsyncIterator<string>,
  until: (line: string) => boolean,
  what: string,
): Promise<string[]> {
  const got: string[] = [];
  const deadline = setTimeout(() => it.return?.(), 30_000);
  try {
    for (;;) {
      const next = await it.next();
      if (next.done) throw new Error(`the watch ended before ${what}: ${got.join("\n")}`);
      got.push(next.value);
      if (until(next.value)) return got;
    }
  } finally {
    clearTimeout(deadline);
  }
}

Deno.test("a silent worker shows as stalled in status and watch, and its run goes on", async () => {
  await using w = await crewWorld({ stallAfter: "1s" });
  const go = join(w.dir, "go");
  const started = await w.run([
    "run",
    "--bg",
    task("Read f", [{ tool: "read", target: "f" }, { waitFile: go }, { answer: "moved on" }]),
  ]);
  assert.equal(started.code, 0, started.stderr);
  const id = started.stdout.trim();

  let stalled: { since: number; quietMs: number; text: string } | undefined;
  await waitFor(async () => {
    const status = await w.run(["status", id, "--json"]);
    stalled = (JSON.parse(status.stdout) as { stalled?: typeof stalled }[])[0]?.stalled;
    return stalled !== undefined;
  }, { timeoutMs: 30_000, what: "status --json to say the run stalled" });
  assert.match(stalled!.text, /^stalled \(no event for \d+s\)$/);
  assert.ok(stalled!.quietMs >= 1000);
  const table = await w.run(["status", id]);
  assert.match(table.stdout, new RegExp(`${id}\\s+stalled \\(no event for \\d+s\\)\\s+read`));

  const json = w.spawn(["watch", id, "--json", "--timeout", "60s"]);
  const brief = w.spawn(["watch", id, "--brief", "--timeout", "60s"]);
  const jsonLines = lines(json);
  const seen = await readUntil(jsonLines, (l) => l.includes('"stalled"'), "a stalled line");
  const line = JSON.parse(seen.at(-1)!);
  assert.equal(line.run, id);
  assert.match(line.text, /^stalled \(no event for \d+s\)$/);
  assert.equal(typeof line.since, "number");
  const briefLines = lines(brief);
  const card = await readUntil(briefLines, (l) => l.includes("stalled"), "a stalled card line");
  assert.match(card.at(-1)!, new RegExp(`^⏸ ${id} stalled \\(no event for \\d+s\\) · opencode`));

  // Not stopped: the worker moves on and the run ends as it would have.
  await Deno.writeTextFile(go, "");
  const rest = await readUntil(jsonLines, (l) => l.includes('"all-done"'), "the end");
  assert.ok(rest.some((l) => JSON.parse(l).event === "done"), rest.join("\n"));
  await readUntil(briefLines, (l) => l.startsWith("all done"), "the brief end");
  for (const child of [json, brief]) {
    const stderr = await new Response(child.stderr).text();
    assert.equal((await child.status).code, 0, stderr);
  }
  const record = await w.record(id);
  assert.equal(record.state, "done");
  assert.equal(record.answer, "moved on");
  const after = await w.run(["status", id, "--json"]);
  assert.equal(JSON.parse(after.stdout)[0].stalled, undefined);
});
