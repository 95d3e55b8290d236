/**
 * The stream tells an open page when a finished run changes (`run.changed`): a card turns applied,
 * then reverted, another discarded, as they happen, each with its card made from its record now
 * (and the card's own fold of the change agrees); an audit's end puts its verdict on the audited
 * run's card; a finished run the page was not told of is announced; a page that reconnects gets
 * the changes it missed. Over a real engine world with the fake worker (no reload, no polling).
 */
import assert from "node:assert/strict";
import type { RunCard } from "../../../src/server/dash/api_types.ts";
import { foldCard } from "../../../src/server/dash/card.ts";
import { type SseMessage, SseReader } from "./_sse.ts";
import { type DashWorld, dashWorld } from "./_world.ts";

async function connect(w: DashWorld, headers: Record<string, string> = {}): Promise<SseReader> {
  return new SseReader(await w.get("/api/stream", headers));
}

/** The card a message carries for `run` (a `run` or an `event` message), else null. */
function cardFor(m: SseMessage, run: string): RunCard | null {
  if (m.event === "run" && m.data.card.id === run) return m.data.card;
  if (m.event === "event" && m.data.run === run) return m.data.card;
  return null;
}

/** Reads until a `run.changed` of `run` whose card says `disposition`; returns the card. */
async function changed(stream: SseReader, run: string, disposition: string): Promise<RunCard> {
  const m = await stream.until(
    (m) =>
      m.event === "event" && m.data.run === run && m.data.event.type === "run.changed" &&
      m.data.card.disposition === disposition,
    `${run} ${disposition}`,
  );
  return cardFor(m, run)!;
}

Deno.test("an open stream sees finished runs turn applied, reverted and discarded as it happens", async () => {
  await using w = await dashWorld();
  const a = await w.run("Add a file edit:src/a.ts", "isolate");
  const b = await w.run("Add another edit:src/b.ts", "isolate");
  await using stream = await connect(w);
  await stream.until((m) => m.event === "ready", "ready");
  for (const run of [a, b]) {
    const card = stream.seen.map((m) => cardFor(m, run.id)).find((c) => c !== null);
    assert.equal(card?.disposition, "not-applied");
    assert.equal(card?.attention, "unapplied");
    assert.equal(card?.canDiscard, true);
  }

  await w.engine.apply(a.id);
  const applied = await changed(stream, a.id, "applied");
  assert.equal(applied.state, "done");
  assert.equal(applied.attention, null);
  assert.equal(applied.canDiscard, false);
  assert.deepEqual(applied.isolation, { applied: true, discarded: false });

  await w.engine.revert(a.id);
  const reverted = await changed(stream, a.id, "reverted");
  assert.equal(reverted.changedFiles, 0);

  await w.engine.discard(b.id);
  const discarded = await changed(stream, b.id, "discarded");
  assert.deepEqual(discarded.isolation, { applied: false, discarded: true });
  assert.equal(discarded.canDiscard, false);
  // Each change once the act is done: the event says what acted, the card is the record's.
  const events = stream.seen.flatMap((m) =>
    m.event === "event" && m.data.event.type === "run.changed" ? [m.data.event] : []
  );
  const last = (run: string) => events.filter((e) => e.run === run).at(-1);
  assert.deepEqual([last(a.id)?.by, last(a.id)?.work], ["revert", "reverted"]);
  assert.deepEqual([last(b.id)?.by, last(b.id)?.work], ["discard", "discarded"]);
  // The fold of each change (what the page could show before the record is read) says what the
  // record says after it.
  for (const run of [a.id, b.id]) {
    let before: RunCard | null = null;
    for (const m of stream.seen) {
      const card = cardFor(m, run);
      if (card === null) continue;
      if (before !== null && m.event === "event" && m.data.event.type === "run.changed") {
        const folded = foldCard(before, m.data.event);
        const shown = (c: RunCard) => [c.disposition, c.isolation, c.canDiscard, c.attention];
        assert.deepEqual(shown(folded), shown(card), `${run} ${m.data.event.by}`);
      }
      before = card;
    }
  }
});

Deno.test("a finished run the page was not told of is announced when it changes", async () => {
  await using w = await dashWorld({ recent: 0 });
  const a = await w.run("Add a file edit:src/a.ts", "isolate");
  await using stream = await connect(w);
  await stream.until((m) => m.event === "ready", "ready");
  assert.ok(!stream.seen.some((m) => cardFor(m, a.id) !== null), "not announced at first");
  await w.engine.apply(a.id);
  const m = await stream.until((m) => cardFor(m, a.id) !== null, "the run announced");
  assert.equal(m.event, "run");
  // (Announced at the apply's first change: its last says applied.)
  const applied = cardFor(m, a.id)?.disposition === "applied" ? m : await stream.until(
    (m) => cardFor(m, a.id)?.disposition === "applied",
    "the applied run",
  );
  assert.equal(cardFor(applied, a.id)?.state, "done");
});

Deno.test("a page that reconnects gets the changes it missed", async () => {
  await using w = await dashWorld();
  const a = await w.run("Add a file edit:src/a.ts", "isolate");
  const first = await connect(w);
  await first.until((m) => m.event === "ready", "ready");
  const cut = first.seen.at(-1)!.id;
  await first.close();

  await w.engine.apply(a.id);
  await using again = await connect(w, { "last-event-id": cut });
  await again.until((m) => m.event === "ready", "ready");
  const cards = again.seen.map((m) => cardFor(m, a.id)).filter((c) => c !== null);
  assert.equal(cards.at(-1)?.disposition, "applied", "the apply came before ready");
});

Deno.test("an audit of a finished answer puts its verdict on the open page's card as it ends", async () => {
  await using w = await dashWorld();
  const read = await w.run("Where is the answer?");
  await using stream = await connect(w);
  await stream.until((m) => m.event === "ready", "ready");
  const before = stream.seen.map((m) => cardFor(m, read.id)).find((c) => c !== null);
  assert.deepEqual(before?.verdicts, []);
  await w.engine.audit({ run: read.id, worker: "codex" });
  // (The fake auditor's reply has no AUDIT line: the audit failed, and the card says so.)
  const m = await stream.until(
    (m) =>
      m.event === "event" && m.data.run === read.id && m.data.event.type === "run.changed" &&
      m.data.card.verdicts.some((v) => v.badges.some((b) => b.value === "failed")),
    "the audit's end on the audited card",
  );
  assert.ok(m.event === "event" && m.data.event.type === "run.changed");
  assert.equal(m.data.event.by, "audit");
});
