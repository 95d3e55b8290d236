/**
 * A refused run through the real program and the real codex CLI: one line on stderr and
 * exit 3, no receipt card on stdout.
 */
import assert from "node:assert/strict";
import { waitFor } from "../support/temp.ts";
import { world } from "./_world.ts";

Deno.test("a second write run in the same repository is one line on stderr, exit 3, no card, no run", async () => {
  await using w = await world({
    slow: {
      turns: [
        { read: "README.md" },
        // It waits until it is stopped: the second run always meets it working.
        { read: "src/app.ts", hang: true },
      ],
    },
    quick: { turns: [{ answer: "Quick one." }] },
  });
  const first = await w.run(["run", "-w", "--bg", "-W", "codex", "-m", "fake/slow", "Slow"]);
  assert.equal(first.code, 0, first.stderr);
  const id = first.stdout.trim();
  // Once its worker made a tool call, the first run holds the repository's writer lock.
  await waitFor(async () => ((await w.record(id).catch(() => null))?.progress.tools ?? 0) >= 1, {
    timeoutMs: 30_000,
    what: "the first write run's first tool call",
  });
  const second = await w.run(["run", "-w", "-W", "codex", "-m", "fake/quick", "Quick"]);
  assert.equal(second.code, 3, second.stdout + second.stderr);
  assert.equal(second.stdout, "");
  const lines = second.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, second.stderr);
  assert.match(lines[0]!, new RegExp(`^pitroom: Another write run \\(${id}\\) is working in `));
  // A refusal makes no run: the working run is still the last one.
  const listed = await w.run(["ls", "--json"]);
  assert.deepEqual(JSON.parse(listed.stdout).map((r: { id: string }) => r.id), [id]);
  const background = await w.run(["run", "-w", "--bg", "-W", "codex", "-m", "fake/quick", "Q"]);
  assert.equal(background.code, 3, background.stdout + background.stderr);
  assert.equal(background.stdout, "");
  assert.equal(JSON.parse((await w.run(["ls", "--json"])).stdout).length, 1);
  await w.run(["stop", id]);
});
