/**
 * The dashboard benchmark: with 10,000 finished runs in the history (generated straight into a
 * state dir with benchmarks/history/_generate.ts and imported, no workers),
 *
 * - first load: a first visit (new browser context, empty cache) from navigation until Live shows
 *   its cards and the stream's replay is done, in Debian's Chromium on loopback;
 * - API: each read route of the JSON API over a real loopback port, p50 and p99;
 * - event to screen: a fake worker (a real process) writes tool calls one at a time; the time
 *   from the event (its `time`, stamped when the engine read the worker's line) to the moment the
 *   card in the page shows the new count (a MutationObserver in the page, same machine clock).
 *
 * `deno task bench:dash [--runs 10000] [--rounds 30] [--events 40] [--out FILE] [--json]`.
 * Targets: first load <= 300 ms, API p50 <= 20 ms, event to screen p50 <= 100 ms.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createEngine } from "../../src/engine/mod.ts";
import { withHistory } from "../../src/store/history/ready.ts";
import type { RunSpec } from "../../src/workers/types.ts";
import { browserMissing, openBrowser } from "../../tests/support/browser.ts";
import { serveDashboard } from "../../tests/support/dash_server.ts";
import { fakeBackend, type FakeStep } from "../../tests/support/fake_backend.ts";
import { testSys } from "../../tests/support/sys.ts";
import { tempRepo } from "../../tests/support/temp.ts";
import { generateRuns } from "../history/_generate.ts";
import { checkFigures, quantile } from "../_figures.ts";

const TARGETS = { firstLoadMs: 300, apiP50Ms: 20, eventToScreenP50Ms: 100 };
const DEFAULT_OUT = fileURLToPath(new URL("./results/latest.json", import.meta.url));

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "10000" },
    rounds: { type: "string", default: "30" },
    events: { type: "string", default: "40" },
    out: { type: "string" },
    json: { type: "boolean", default: false },
  },
});
const RUNS = Number(args.runs);
const ROUNDS = Number(args.rounds);
const EVENTS = Number(args.events);
const log = (text: string) => console.error(text);

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const summary = (values: number[], what: string) => ({
  p50: round(quantile(values, 0.5, what)),
  p90: round(quantile(values, 0.9, what)),
  p99: round(quantile(values, 0.99, what)),
  n: values.length,
});

const missing = browserMissing();
if (missing !== null) {
  console.error(`bench:dash needs Chromium: ${missing}`);
  Deno.exit(1);
}

const state = await Deno.makeTempDir({ prefix: "pitroom-bench-dash-" });
await using repo = await tempRepo({ "src/app.ts": "export const app = 1;\n" });
const gates = await Deno.makeTempDir({ prefix: "pitroom-bench-gates-" });
try {
  const sys = testSys({ stateDir: state, cwd: repo.path });
  log(`generating ${RUNS} runs ...`);
  let t = performance.now();
  const ids = generateRuns(state, RUNS, Date.now());
  await withHistory(sys, () => undefined);
  log(`  ${round((performance.now() - t) / 1000)} s (generated and imported)`);

  // The live run of the latency measurement: one tool call per gate file the benchmark makes.
  const steps = (_spec: RunSpec): FakeStep[] => [
    ...Array.from({ length: EVENTS }, (_, i): FakeStep[] => [
      { waitFile: join(gates, String(i)) },
      { tool: "read", target: `src/file_${i}.ts` },
    ]).flat(),
    { answer: "done" },
  ];
  const backend = fakeBackend(steps);
  const engine = createEngine(sys, { backends: () => backend });
  await using dash = serveDashboard(engine);
  await using browser = openBrowser()!;
  const page = browser.page;

  // ---- first load
  log(`first load, ${ROUNDS} first visits ...`);
  const firstLoad: number[] = [];
  const nav: Array<Record<string, number>> = [];
  for (let i = 0; i <= ROUNDS; i++) {
    await browser.freshContext();
    // A first visit opens an address with a one-time token, as `pitroom dash` prints it.
    const link = `${await dash.link()}#live`;
    t = performance.now();
    const clicked = Date.now();
    await page.goto(link);
    // In the page's clock: from the start of navigation to the cards on screen, replay done.
    const shown = await page.waitForFunction(
      "document.querySelector('article.card') !== null && document.querySelector('[data-connecting]') === null",
    );
    const outside = performance.now() - t;
    const timing = await page.eval<Record<string, number>>(`(() => {
      const n = performance.getEntriesByType("navigation")[0];
      return {
        responseEnd: n.responseEnd,
        domContentLoaded: n.domContentLoadedEventEnd,
        timeOrigin: performance.timeOrigin,
      };
    })()`);
    if (i === 0) continue; // warm-up: the server's first page render, the JIT
    // The page's clock starts at the clean address; the door's hop before it (token page, its
    // script, the replace) is the time from the click to that start (the same machine clock).
    const door = Math.max(0, timing.timeOrigin! - clicked);
    firstLoad.push(door + shown);
    nav.push({ ...timing, door, outside });
  }

  // ---- API
  log(`API, ${ROUNDS} rounds of every route ...`);
  const one = ids[Math.floor(ids.length / 2)]!;
  const routes: Record<string, string> = {
    "runs": "/api/runs",
    "run": `/api/runs/${one}`,
    "events": `/api/runs/${one}/events`,
    "history": "/api/history",
    "history ?q": "/api/history?q=parser",
    "history ?q&state": "/api/history?q=token&state=problem",
    "stats 30d": "/api/stats?since=30d",
    "summary": "/api/summary",
    "savings": "/api/savings",
    "models": "/api/models",
  };
  const api: Record<string, number[]> = {};
  // The page's headers: its session's cookie and key.
  const headers = await dash.enter();
  for (let i = 0; i <= ROUNDS; i++) {
    for (const [name, path] of Object.entries(routes)) {
      const start = performance.now();
      const res = await fetch(new URL(path, dash.url), { headers });
      await res.arrayBuffer();
      const ms = performance.now() - start;
      if (!res.ok) throw new Error(`${path}: ${res.status}`);
      if (i > 0) (api[name] ??= []).push(ms);
    }
  }

  // ---- event to screen
  log(`event to screen, ${EVENTS} tool calls of a live run ...`);
  await page.goto(`${dash.url}#live`);
  await page.waitForFunction("document.querySelector('[data-connecting]') === null");
  const running = engine.run({ task: "Read the files one by one", worker: "opencode" });
  let id = "";
  while (id === "") {
    // The run's record appears within a few ms; the page announces it from the stream.
    id = await page.eval<string>(
      `document.querySelector('article.card[data-state=running]')?.dataset.run ?? ""`,
    ).catch(() => "");
    if (id === "") {
      await page.waitForFunction(
        "document.querySelector('article.card[data-state=running]') !== null",
      );
    }
  }
  await page.eval(`(() => {
    window.__seen = [];
    const card = () => document.querySelector('article.card[data-run="${id}"] [data-count=tools]');
    let last = card()?.textContent;
    new MutationObserver(() => {
      const text = card()?.textContent;
      if (text !== last) { last = text; window.__seen.push([Date.now(), parseInt(text ?? "0")]); }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  })()`);
  for (let i = 0; i < EVENTS; i++) {
    await Deno.writeTextFile(join(gates, String(i)), "");
    await page.waitForFunction(
      `window.__seen.some(([, n]) => n >= ${i + 1})`,
    );
  }
  const report = await running;
  if (report.state !== "done") {
    throw new Error(`the live run ended ${report.state}: ${report.message}`);
  }
  const seen = await page.eval<Array<[number, number]>>("window.__seen");
  const toolTimes = (await engine.events(id)).filter((e) => e.type === "worker.tool_call")
    .map((e) => e.time);
  const latency: number[] = [];
  for (let k = 1; k <= EVENTS; k++) {
    const shown = seen.find(([, n]) => n >= k)?.[0];
    const written = toolTimes[k - 1];
    if (shown !== undefined && written !== undefined) latency.push(shown - written);
  }

  // The page never asks for the models (that route probes the installed CLIs): not in "all".
  const apiAll = Object.entries(api).filter(([k]) => k !== "models").flatMap(([, v]) => v);
  const result = {
    machine: {
      deno: Deno.version.deno,
      cores: navigator.hardwareConcurrency,
      load: Deno.loadavg(),
    },
    runs: RUNS,
    rounds: ROUNDS,
    targets: TARGETS,
    firstLoadMs: {
      ...summary(firstLoad, "first load"),
      navigation: {
        responseEnd: summary(nav.map((n) => n.responseEnd!), "responseEnd"),
        domContentLoaded: summary(nav.map((n) => n.domContentLoaded!), "domContentLoaded"),
        /** From the click on the token address to the start of the clean page's navigation. */
        door: summary(nav.map((n) => n.door!), "door"),
        /** Seen from the benchmark: navigation and the driver's round trips included. */
        fromOutside: summary(nav.map((n) => n.outside!), "from outside"),
      },
    },
    apiMs: {
      all: summary(apiAll, "API"),
      ...Object.fromEntries(Object.entries(api).map(([k, v]) => [k, summary(v, `API ${k}`)])),
    },
    eventToScreenMs: summary(latency, "event to screen"),
  };
  checkFigures(result);
  const out = args.out ?? DEFAULT_OUT;
  await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
  await Deno.writeTextFile(out, JSON.stringify(result, null, 2) + "\n");
  if (args.json) console.log(JSON.stringify(result, null, 2));
  else {
    const ok = (v: number, target: number) => (v <= target ? "ok" : "OVER");
    console.log(
      [
        `${RUNS} runs in the history; ${ROUNDS} rounds; load ${
          Deno.loadavg().map((n) => n.toFixed(1)).join(" ")
        }`,
        `first load       p50 ${result.firstLoadMs.p50} ms  p90 ${result.firstLoadMs.p90} ms  (target <= ${TARGETS.firstLoadMs}: ${
          ok(result.firstLoadMs.p50, TARGETS.firstLoadMs)
        })`,
        `API, page routes p50 ${result.apiMs.all.p50} ms  p99 ${result.apiMs.all.p99} ms  (target p50 <= ${TARGETS.apiP50Ms}: ${
          ok(result.apiMs.all.p50, TARGETS.apiP50Ms)
        })`,
        ...Object.entries(api).map(([k, v]) => {
          const s = summary(v, `API ${k}`);
          return `  ${k.padEnd(18)} p50 ${s.p50} ms  p99 ${s.p99} ms`;
        }),
        `event to screen  p50 ${result.eventToScreenMs.p50} ms  p90 ${result.eventToScreenMs.p90} ms  (target p50 <= ${TARGETS.eventToScreenP50Ms}: ${
          ok(result.eventToScreenMs.p50, TARGETS.eventToScreenP50Ms)
        })`,
        `results: ${out}`,
      ].join("\n"),
    );
  }
} finally {
  await Deno.remove(state, { recursive: true });
  await Deno.remove(gates, { recursive: true });
}
