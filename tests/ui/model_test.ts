import { deepStrictEqual as assertEquals } from "node:assert/strict";
import type { PitroomEvent, RunCard } from "../../ui/src/api/types.ts";
import { historyParams } from "../../ui/src/api/query.ts";
import { needsAttention, stateLabel } from "../../ui/src/model/card.ts";
import { bars, niceMax } from "../../ui/src/model/chart.ts";
import { duration, plural, snippetParts, tokens, usd, when } from "../../ui/src/model/format.ts";
import {
  ALL,
  type Cards,
  crewsOf,
  listCards,
  passes,
  putCard,
  tilesOf,
} from "../../ui/src/model/live.ts";
import { hashOf, parseHash } from "../../ui/src/model/route.ts";
import { parseChoice, themeOf, toggled } from "../../ui/src/model/theme.ts";
import { timelineOf } from "../../ui/src/model/timeline.ts";
import { mergeEvents } from "../../ui/src/model/events.ts";

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);

function card(id: string, over: Partial<RunCard> = {}): RunCard {
  return {
    id,
    state: "running",
    mode: "read",
    task: `task of ${id}`,
    kind: "run",
    title: `task of ${id}`,
    about: null,
    verdicts: [],
    disposition: null,
    worker: "opencode",
    model: null,
    workerLabel: "opencode",
    group: null,
    taskIndex: null,
    position: null,
    createdAt: T0,
    startedAt: T0,
    endedAt: null,
    steps: 0,
    tools: 0,
    denied: 0,
    last: null,
    tokens: { input: 0, output: 0, cached: 0, reasoning: 0 },
    cost: null,
    saved: null,
    fallbacks: 0,
    outcome: null,
    exit: null,
    message: null,
    changedFiles: 0,
    isolation: null,
    attention: null,
    canStop: true,
    canDiscard: false,
    ...over,
  };
}

Deno.test("putCard() replaces a card in place and counts its revisions", () => {
  let cards: Cards = new Map();
  cards = putCard(cards, card("20261201-120000-aaaa"));
  const before = cards;
  cards = putCard(cards, card("20261201-120000-aaaa", { steps: 3 }));
  assertEquals(before.get("20261201-120000-aaaa")!.rev, 0);
  assertEquals(cards.get("20261201-120000-aaaa")!.rev, 1);
  assertEquals(cards.get("20261201-120000-aaaa")!.steps, 3);
  assertEquals(cards.size, 1);
});

Deno.test("listCards() is newest first", () => {
  let cards: Cards = new Map();
  cards = putCard(cards, card("20261201-120000-aaaa", { createdAt: T0 }));
  cards = putCard(cards, card("20261201-120100-bbbb", { createdAt: T0 + 60_000 }));
  assertEquals(listCards(cards).map((c) => c.id), ["20261201-120100-bbbb", "20261201-120000-aaaa"]);
});

Deno.test("passes() filters by running, needs attention, group and text", () => {
  const running = card("20261201-120000-aaaa", { task: "Find the parser" });
  const failed = card("20261201-120000-bbbb", {
    state: "problem",
    outcome: "failed",
    attention: "problem",
    group: "g1",
  });
  const denied = card("20261201-120000-cccc", { state: "done", outcome: "ok", denied: 1 });
  const fine = card("20261201-120000-dddd", { state: "done", outcome: "ok", group: "g1" });
  const all = [running, failed, denied, fine];
  const ids = (f: Parameters<typeof passes>[1]) =>
    all.filter((c) => passes(c, f)).map((c) => c.id.slice(-4));
  assertEquals(ids(ALL), ["aaaa", "bbbb", "cccc", "dddd"]);
  assertEquals(ids({ ...ALL, show: "running" }), ["aaaa"]);
  assertEquals(ids({ ...ALL, show: "attention" }), ["bbbb", "cccc"]);
  assertEquals(ids({ ...ALL, group: "g1" }), ["bbbb", "dddd"]);
  assertEquals(ids({ ...ALL, text: "PARSER" }), ["aaaa"]);
  assertEquals(ids({ ...ALL, text: "dddd" }), ["dddd"]);
});

Deno.test("needsAttention() and stateLabel() read the card", () => {
  assertEquals(needsAttention(card("x", { fallbacks: 1 })), true);
  assertEquals(needsAttention(card("x")), false);
  assertEquals(stateLabel(card("x", { state: "queued", position: 2 })), "queued #2");
  // What became of the work is the card's disposition badge, not its state.
  assertEquals(stateLabel(card("x", { state: "done", attention: "unapplied" })), "done");
  assertEquals(stateLabel(card("x", { state: "problem", outcome: "timeout" })), "timeout");
  assertEquals(stateLabel(card("x")), "running");
  assertEquals(
    stateLabel(card("x", { stalled: "stalled (no event for 10m)" })),
    "stalled (no event for 10m)",
  );
});

Deno.test("crewsOf() gives each group its worker mix, progress and counts", () => {
  let cards: Cards = new Map();
  const g = { group: "g1" };
  cards = putCard(
    cards,
    card("20261201-120000-0001", { ...g, taskIndex: 1, workerLabel: "codex" }),
  );
  cards = putCard(cards, card("20261201-120000-0002", { ...g, taskIndex: 0, state: "done" }));
  cards = putCard(
    cards,
    card("20261201-120000-0003", { ...g, taskIndex: 2, state: "problem", workerLabel: "codex" }),
  );
  cards = putCard(cards, card("20261201-120000-0004"));
  const [crew, ...rest] = crewsOf(listCards(cards));
  assertEquals(rest, []);
  assertEquals(crew!.group, "g1");
  assertEquals(crew!.runs.map((r) => r.taskIndex), [0, 1, 2]);
  assertEquals(crew!.mix, [{ worker: "codex", runs: 2 }, { worker: "opencode", runs: 1 }]);
  assertEquals([crew!.live, crew!.done, crew!.problems], [1, 1, 1]);
  assertEquals(Math.round(crew!.progress * 100), 67);
});

Deno.test("tilesOf() counts running cards and adds runs that ended after the summary", () => {
  let cards: Cards = new Map();
  cards = putCard(cards, card("20261201-120000-0001"));
  cards = putCard(
    cards,
    card("20261201-120000-0002", { state: "done", endedAt: T0 + 10, saved: 0.5 }),
  );
  cards = putCard(
    cards,
    card("20261201-120000-0003", { state: "done", endedAt: T0 - 10, saved: 9 }),
  );
  const tiles = tilesOf(
    listCards(cards),
    { at: T0, finishedToday: 4, savedThisWeek: 2 },
    T0 - 3600_000,
  );
  assertEquals(tiles, { running: 1, finishedToday: 5, savedWeek: 2.5 });
  assertEquals(tilesOf([], null, T0), { running: 0, finishedToday: 0, savedWeek: 0 });
});

Deno.test("timelineOf() makes steps with failures and denials marked", () => {
  const evs: PitroomEvent[] = [
    {
      type: "run.started",
      time: 1,
      run: "r",
      worker: "codex",
      model: "m",
      mode: "read",
      attempt: 1,
    },
    { type: "worker.tool_call", time: 2, tool: "read", kind: "read", target: "a.ts", status: "ok" },
    {
      type: "worker.tool_call",
      time: 3,
      tool: "bash",
      kind: "shell",
      target: "rm x",
      status: "denied",
    },
    {
      type: "worker.tool_call",
      time: 4,
      tool: "grep",
      kind: "search",
      target: "foo",
      status: "error",
      error: "exit 2",
    },
    { type: "worker.text", time: 5, text: "  " },
    { type: "worker.step", time: 5 },
    { type: "run.finished", time: 6, run: "r", state: "done", outcome: "ok", exit: 0 },
  ];
  assertEquals(
    timelineOf(evs).map((s) => [s.time, s.kind, s.label, s.status, s.detail]),
    [
      [1, "run", "started codex:m", "info", "attempt 1"],
      [2, "read", "a.ts", "ok", "read"],
      [3, "shell", "rm x", "denied", "bash"],
      [4, "search", "foo", "error", "exit 2"],
      [6, "run", "finished ok", "ok", null],
    ],
  );
});

Deno.test("mergeEvents() adds the streamed events the loaded list does not have", () => {
  const a: PitroomEvent = { type: "worker.text", time: 1, text: "a" };
  const b: PitroomEvent = { type: "worker.text", time: 2, text: "b" };
  assertEquals(mergeEvents([a], [a, b]), [a, b]);
  assertEquals(mergeEvents([], [b]), [b]);
});

Deno.test("parseHash() and hashOf() give the tabs and runs addresses", () => {
  assertEquals(parseHash(""), { tab: "live", run: null });
  assertEquals(parseHash("#stats"), { tab: "stats", run: null });
  assertEquals(parseHash("#20261201-120000-ab12"), { tab: "live", run: "20261201-120000-ab12" });
  assertEquals(parseHash("#history/20261201-120000-ab12"), {
    tab: "history",
    run: "20261201-120000-ab12",
  });
  assertEquals(parseHash("#nonsense"), { tab: "live", run: null });
  for (
    const h of [
      "#live",
      "#history",
      "#stats",
      "#20261201-120000-ab12",
      "#history/20261201-120000-ab12",
    ]
  ) {
    assertEquals(hashOf(parseHash(h)), h);
  }
});

Deno.test("themeOf() follows the system until the toggle chose", () => {
  assertEquals(themeOf(null, true), "dark");
  assertEquals(themeOf(null, false), "light");
  assertEquals(themeOf("light", true), "light");
  assertEquals(parseChoice("dark"), "dark");
  assertEquals(parseChoice("purple"), null);
  assertEquals(toggled("dark"), "light");
});

Deno.test("bars() scales to a round maximum and fills the box", () => {
  assertEquals([niceMax(0), niceMax(7), niceMax(23), niceMax(180), niceMax(1)], [
    1,
    10,
    25,
    200,
    1,
  ]);
  const { bars: bs, max } = bars([{ label: "a", value: 5 }, { label: "b", value: 10 }], {
    width: 102,
    height: 50,
    gap: 2,
  });
  assertEquals(max, 10);
  assertEquals(bs.map((b) => [b.x, b.width, b.y, b.height]), [[0, 50, 25, 25], [52, 50, 0, 50]]);
  const one = bars([{ label: "a", value: 1 }], { width: 500, height: 10, maxBar: 40 });
  assertEquals(one.bars.map((b) => [b.x, b.width]), [[0, 40]]);
});

Deno.test("format helpers write short figures", () => {
  assertEquals([duration(850), duration(12_400), duration(185_000), duration(3_720_000)], [
    "850ms",
    "12s",
    "3m 05s",
    "1h 02m",
  ]);
  // A day and more does not wrap back to a few hours.
  assertEquals([duration(26 * 3_600_000 + 60_000), duration(-5), duration(NaN)], [
    "1d 02h",
    "0ms",
    "0ms",
  ]);
  assertEquals([tokens(950), tokens(12_345), tokens(4_500_000)], ["950", "12k", "4.5M"]);
  assertEquals([usd(0), usd(0.004), usd(0.42), usd(12.4)], ["$0", "$0.0040", "$0.42", "$12"]);
  // A negative saving: the sign before the dollar.
  assertEquals([usd(-0.07), usd(-0.004), usd(-12.4)], ["-$0.07", "-$0.0040", "-$12"]);
  assertEquals([plural(1, "tool"), plural(0, "tool"), plural(3, "file")], [
    "1 tool",
    "0 tools",
    "3 files",
  ]);
});

Deno.test("when() says a moment in local time next to now, never in epoch ms or ISO", () => {
  const now = new Date(2026, 11, 3, 15, 30).getTime();
  const at = (d: number, h: number, m: number, y = 2026, mo = 11) =>
    when(new Date(y, mo, d, h, m).getTime(), now);
  assertEquals(at(3, 14, 5), "today 14:05");
  assertEquals(at(2, 9, 12), "yesterday 09:12");
  assertEquals(at(4, 8, 0), "tomorrow 08:00");
  assertEquals(at(1, 23, 59), "1 Dec 23:59");
  assertEquals(at(30, 7, 1, 2025, 10), "30 Nov 2025 07:01");
});

Deno.test("snippetParts() splits a snippet at its match marks", () => {
  assertEquals(snippetParts("the \uE000parser\uE001 reads \uE000x\uE001"), [
    { text: "the ", match: false },
    { text: "parser", match: true },
    { text: " reads ", match: false },
    { text: "x", match: true },
  ]);
  assertEquals(snippetParts("plain"), [{ text: "plain", match: false }]);
});

Deno.test("historyParams() asks for one page with the filters", () => {
  const p = historyParams({
    text: " fix ",
    state: "done",
    model: "",
    worker: "codex",
    period: "",
    page: 2,
  });
  assertEquals(p.toString(), "q=fix&state=done&worker=codex&since=all&limit=20&offset=40");
});
