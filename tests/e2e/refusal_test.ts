/**
 * A refused run through the real program and the real opencode CLI: one line on stderr and
 * exit 3, no receipt card on stdout.
 */
import assert from "node:assert/strict";
import { waitFor } from "../support/temp.ts";
import { world } from "./_world.ts";

Deno.test("a second write run in the same repository is one line on stderr, exit 3, no card", async () => {
  await using w = await world({
    slow: {
      turns: [
        { read: "README.md" },
        { read: "src/app.ts", delay_ms: 5000 },
        { answer: "Slow one done." },
      ],
    },
    quick: { turns: [{ answer: "Quick one." }] },
  });
  const first = await w.run(["run", "-w", "--bg", "-W", "opencode", "-m", "fake/slow", "Slow"]);
  assert.equal(first.code, 0, first.stderr);
  const id = first.stdout.trim();
  // Once its worker made a tool call, the first run holds the repository's writer lock.
  await waitFor(async () => ((await w.record(id).catch(() => null))?.progress.tools ?? 0) >= 1, {
    timeoutMs: 30_000,
    what: "the first write run's first tool call",
  });
  const second = await w.run(["run", "-w", "-W", "opencode", "-m", "fake/quick", "Quick"]);
  assert.equal(second.code, 3, second.stdout + second.stderr);
  assert.equal(second.stdout, "");
  const lines = second.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, second.stderr);
  assert.match(lines[0]!, new RegExp(`^pitroom: Another write run \\(${id}\\) is working in `));
  await w.run(["stop", id]);
});
