/**
 * The dashboard's API through `app.request()` over a real engine world (real git, real SQLite
 * history, the fake worker as a real process): every route, bad ids and parameters, 404s, and
 * the guards (a forged Host anywhere; a write from another Origin). door_test.ts has the door.
 */
import assert from "node:assert/strict";
import type {
  ApiError,
  EventsResponse,
  HealthResponse,
  HistoryResponse,
  ModelsResponse,
  RunResponse,
  RunsResponse,
  SavingsResponse,
  StatsResponse,
  SummaryResponse,
  WriteResponse,
} from "../../../src/server/dash/api_types.ts";
import { CSP } from "../../../src/server/dash/page.ts";
import { dashWorld, HOST, passHeaders } from "./_world.ts";

async function json<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.match(res.headers.get("content-type") ?? "", /application\/json/);
  return JSON.parse(text) as T;
}

async function refused(res: Response, status: number, code: string): Promise<ApiError> {
  const body = await json<ApiError>(res, status);
  assert.equal(body.error.code, code, body.error.message);
  return body;
}

const MISSING = "20200101-000000-abcd";

Deno.test("GET / serves the page: no secret in it, a strict CSP, no inline script", async () => {
  await using w = await dashWorld({ page: { js: "console.log(1)", css: "body{}" } });
  const res = await w.get("/");
  const html = await res.text();
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-security-policy"), CSP);
  assert.match(CSP, /default-src 'self'/);
  assert.doesNotMatch(CSP, /unsafe-inline|unsafe-eval/);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.ok(html.includes(`<div id="app"></div>`), html);
  // The page is the same for everyone: neither the cookie nor the key is in it.
  assert.equal(html.includes(w.pass.key), false);
  assert.equal(html.includes(w.pass.cookie.split("=")[1]!), false);
  assert.doesNotMatch(html, /pitroom-secret/);
  // The page of a session that claimed its key says so (the page then reads it from storage).
  assert.match(html, /<meta name="pitroom-session" content="claimed">/);
  // Every script is an external file of this origin: nothing inline.
  for (const m of html.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)) {
    assert.match(m[1]!, /src="\/app\.js\?v=[0-9a-f]{16}"/);
    assert.equal(m[2], "");
  }
  assert.doesNotMatch(html, /<style|style="/);
});

Deno.test("the assets: their hashed address is cached for good, the plain one revalidates", async () => {
  await using w = await dashWorld({ page: { js: "console.log(1)", css: "body{}" } });
  const html = await (await w.get("/")).text();
  const js = /src="(\/app\.js\?v=([0-9a-f]+))"/.exec(html)!;
  const css = /href="(\/app\.css\?v=([0-9a-f]+))"/.exec(html)!;
  const hashed = await w.get(js[1]!);
  assert.equal(await hashed.text(), "console.log(1)");
  assert.match(hashed.headers.get("content-type")!, /text\/javascript/);
  assert.equal(hashed.headers.get("cache-control"), "public, max-age=31536000, immutable");
  const style = await w.get(css[1]!);
  assert.equal(await style.text(), "body{}");
  assert.match(style.headers.get("content-type")!, /text\/css/);
  const plain = await w.get("/app.js");
  await plain.body?.cancel();
  assert.equal(plain.headers.get("cache-control"), "no-cache");
  assert.equal(plain.headers.get("etag"), `"${js[2]}"`);
  const again = await w.get("/app.js", { "if-none-match": `"${js[2]}"` });
  assert.equal(again.status, 304);
  await again.body?.cancel();
});

Deno.test("the embedded page is ui/dist's build", async () => {
  await using w = await dashWorld();
  const js = await (await w.get("/app.js")).text();
  const built = await Deno.readTextFile(new URL("../../../ui/dist/app.js", import.meta.url));
  assert.equal(js, built);
});

Deno.test("every route refuses a Host that is not this dashboard's (DNS rebinding)", async () => {
  await using w = await dashWorld();
  const done = await w.run("Where is the answer?");
  const routes = [
    "/",
    "/app.js",
    "/app.css",
    "/api/health",
    "/api/runs",
    `/api/runs/${done.id}`,
    `/api/runs/${done.id}/events`,
    `/api/runs/${done.id}/patch`,
    "/api/history",
    "/api/stats",
    "/api/savings",
    "/api/summary",
    "/api/models",
    "/api/stream",
  ];
  const forged = ["evil.example:7878", "127.0.0.1:7879", "127.0.0.1", "localhost.evil:7878", ""];
  for (const path of routes) {
    for (const host of forged) {
      await refused(await w.get(path, { host }), 403, "forbidden_host");
    }
    // The same request with a local Host passes the guard.
    const ok = await w.get(path, { host: "localhost:7878" });
    assert.notEqual(ok.status, 403, path);
    await ok.body?.cancel();
  }
  for (const action of ["stop", "discard"]) {
    await refused(
      await w.post(`/api/runs/${done.id}/${action}`, { host: "evil.example:7878" }),
      403,
      "forbidden_host",
    );
  }
});

Deno.test("GET /api/runs: the runs as cards, newest first, with what needs attention", async () => {
  await using w = await dashWorld();
  const read = await w.run("Where is the answer?");
  const iso = await w.run("Change it edit:src/app.ts", "isolate");
  assert.equal(iso.outcome, "ok", iso.message);
  const body = await json<RunsResponse>(await w.get("/api/runs"));
  assert.deepEqual(body.runs.map((c) => c.id), [iso.id, read.id]);
  const [isoCard, readCard] = body.runs;
  assert.equal(readCard!.state, "done");
  assert.equal(readCard!.worker, "opencode");
  assert.equal(readCard!.mode, "read");
  assert.equal(readCard!.tools, 1);
  assert.equal(readCard!.last, "read src/app.ts");
  assert.equal(readCard!.attention, null);
  assert.equal(readCard!.canStop, false);
  assert.equal(readCard!.canDiscard, false);
  assert.ok(readCard!.saved !== null);
  assert.equal(isoCard!.changedFiles, 1);
  assert.equal(isoCard!.attention, "unapplied");
  assert.equal(isoCard!.canDiscard, true);
  assert.deepEqual(isoCard!.isolation, { applied: false, discarded: false });

  const one = await json<RunsResponse>(await w.get("/api/runs?recent=1"));
  assert.deepEqual(one.runs.map((c) => c.id), [iso.id]);
  await refused(await w.get("/api/runs?group=none"), 400, "usage");
  await refused(await w.get("/api/runs?recent=-1"), 400, "usage");
  await refused(await w.get("/api/runs?recent=many"), 400, "usage");
});

Deno.test("GET /api/runs/:id: the card and the report; a bad id is 400, an unknown one 404", async () => {
  await using w = await dashWorld();
  const read = await w.run("Where is the answer?");
  const body = await json<RunResponse>(await w.get(`/api/runs/${read.id}`));
  assert.equal(body.kept, false);
  assert.equal(body.card.id, read.id);
  assert.equal(body.report.id, read.id);
  assert.equal(body.report.answer, "the answer is 41, in src/app.ts:1");
  assert.equal(body.report.task, "Where is the answer?");
  for (const bad of ["last", read.id.slice(-4), "..%2F..%2Fetc", "20261301-000000-zzzz"]) {
    await refused(await w.get(`/api/runs/${bad}`), 400, "bad_id");
    await refused(await w.get(`/api/runs/${bad}/events`), 400, "bad_id");
    await refused(await w.get(`/api/runs/${bad}/patch`), 400, "bad_id");
  }
  await refused(await w.get(`/api/runs/${MISSING}`), 404, "no_run");
  await refused(await w.get(`/api/runs/${MISSING}/events`), 404, "no_run");
  await refused(await w.get(`/api/runs/${MISSING}/patch`), 404, "no_run");
  await refused(await w.get("/api/nothing"), 404, "not_found");
  await refused(await w.get(`/api/runs/${read.id}/stop`), 404, "not_found");
});

Deno.test("GET /api/runs/:id/events: the events from an index, and where to ask next", async () => {
  await using w = await dashWorld();
  const read = await w.run("Where is the answer?");
  const all = await json<EventsResponse>(await w.get(`/api/runs/${read.id}/events`));
  assert.equal(all.events[0]?.type, "run.started");
  assert.equal(all.events.at(-1)?.type, "run.finished");
  assert.ok(all.events.some((e) => e.type === "worker.tool_call" && e.target === "src/app.ts"));
  assert.equal(all.next, all.events.length);
  const rest = await json<EventsResponse>(await w.get(`/api/runs/${read.id}/events?since=2`));
  assert.deepEqual(rest.events, all.events.slice(2));
  const none = await json<EventsResponse>(
    await w.get(`/api/runs/${read.id}/events?since=${all.next}`),
  );
  assert.deepEqual(none.events, []);
  assert.equal(none.next, all.next);
  await refused(await w.get(`/api/runs/${read.id}/events?since=-1`), 400, "usage");
  await refused(await w.get(`/api/runs/${read.id}/events?since=1.5`), 400, "usage");
});

Deno.test("GET /api/runs/:id/patch: an isolate run's diff; a run that changed nothing is 404", async () => {
  await using w = await dashWorld();
  const iso = await w.run("Change it edit:src/app.ts", "isolate");
  const res = await w.get(`/api/runs/${iso.id}/patch`);
  const patch = await res.text();
  assert.equal(res.status, 200, patch);
  assert.match(res.headers.get("content-type")!, /text\/x-diff/);
  assert.match(patch, /^diff --git a\/src\/app\.ts b\/src\/app\.ts/m);
  assert.match(patch, /^\+edited by the worker$/m);
  const read = await w.run("Where is the answer?");
  await refused(await w.get(`/api/runs/${read.id}/patch`), 404, "no_patch");
});

Deno.test("a run whose folder was cleaned is answered from the history", async () => {
  await using w = await dashWorld();
  const iso = await w.run("Change it edit:src/app.ts", "write");
  const plan = await w.engine.history.planClean(0);
  assert.ok(plan.remove.some((r) => r.id === iso.id), JSON.stringify(plan));
  await w.engine.history.clean(plan);
  assert.equal(await w.engine.peek(iso.id), null);
  const body = await json<RunResponse>(await w.get(`/api/runs/${iso.id}`));
  assert.equal(body.kept, true);
  assert.equal(body.report.id, iso.id);
  const events = await json<EventsResponse>(await w.get(`/api/runs/${iso.id}/events`));
  assert.equal(events.kept, true);
  assert.ok(events.events.some((e) => e.type === "worker.tool_call"));
  const patch = await w.get(`/api/runs/${iso.id}/patch`);
  assert.match(await patch.text(), /edited by the worker/);
  // A cleaned run is no more stopped or discarded.
  await refused(await w.post(`/api/runs/${iso.id}/discard`), 409, "not_discardable");
});

Deno.test("GET /api/history: full text, filters and paging, newest first", async () => {
  await using w = await dashWorld();
  const first = await w.run("Explain the retry policy");
  const second = await w.run("Explain the retry budget");
  const third = await w.run("List the commands");
  // Newest first by id (runs of the same second by their random part).
  const newest = [first.id, second.id, third.id].sort().reverse();
  const all = await json<HistoryResponse>(await w.get("/api/history"));
  assert.deepEqual(all.hits.map((h) => h.id), newest);
  assert.equal(all.more, false);
  const retry = await json<HistoryResponse>(await w.get("/api/history?q=retry"));
  assert.deepEqual(retry.hits.map((h) => h.id), newest.filter((id) => id !== third.id));
  assert.match(retry.hits[0]!.snippet ?? "", /\uE000retry\uE001/);
  const page1 = await json<HistoryResponse>(await w.get("/api/history?q=explain&limit=1"));
  assert.equal(page1.hits.length, 1);
  assert.equal(page1.more, true);
  const page2 = await json<HistoryResponse>(
    await w.get("/api/history?q=explain&limit=1&offset=1"),
  );
  assert.equal(page2.hits.length, 1);
  assert.equal(page2.more, false);
  assert.equal(page2.offset, 1);
  assert.deepEqual(
    [...page1.hits, ...page2.hits].map((h) => h.id),
    retry.hits.map((h) => h.id),
  );
  const done = await json<HistoryResponse>(
    await w.get("/api/history?state=done&worker=opencode&since=7d"),
  );
  assert.equal(done.hits.length, 3);
  const problems = await json<HistoryResponse>(await w.get("/api/history?state=problem"));
  assert.deepEqual(problems.hits, []);
  const outcome = await json<HistoryResponse>(await w.get("/api/history?state=rate_limited"));
  assert.deepEqual(outcome.hits, []);
  await refused(await w.get("/api/history?state=sideways"), 400, "usage");
  await refused(await w.get("/api/history?limit=0"), 400, "usage");
  await refused(await w.get("/api/history?limit=201"), 400, "usage");
  await refused(await w.get("/api/history?offset=-3"), 400, "usage");
  await refused(await w.get("/api/history?since=soon"), 400, "usage");
});

Deno.test("GET /api/stats, /api/savings and /api/summary: the figures of the runs", async () => {
  await using w = await dashWorld();
  await w.run("Where is the answer?");
  await w.run("Where else?");
  const stats = await json<StatsResponse>(await w.get("/api/stats"));
  assert.equal(stats.total.runs, 2);
  assert.equal(stats.total.ok, 2);
  assert.equal(stats.targets[0]?.worker, "opencode");
  assert.equal(stats.days.length, 1);
  const allTime = await json<StatsResponse>(await w.get("/api/stats?since=all"));
  assert.equal(allTime.since, null);
  const savings = await json<SavingsResponse>(await w.get("/api/savings?since=30d"));
  assert.equal(savings.total.runs, 2);
  assert.equal(typeof savings.primary, "string");
  const summary = await json<SummaryResponse>(await w.get("/api/summary"));
  assert.equal(summary.running, 0);
  assert.equal(summary.queued, 0);
  assert.equal(summary.finishedToday, 2);
  assert.equal(typeof summary.savedThisWeek, "number");
  await refused(await w.get("/api/stats?since=x"), 400, "usage");
});

Deno.test("GET /api/models and /api/health", async () => {
  await using w = await dashWorld({ health: { instance: "i-1", pid: 42 } });
  const models = await json<ModelsResponse>(await w.get("/api/models"));
  assert.deepEqual(models.map((m) => m.worker), [
    "opencode",
    "gemini",
    "kilo",
    "codex",
    "claude",
    "qwen",
    "copilot",
    "crush",
  ]);
  const health = await json<HealthResponse>(await w.get("/api/health"));
  assert.deepEqual(health, { service: "pitroom-dash", instance: "i-1", pid: 42 });
});

Deno.test("POST stop: refused without the key or from another Origin; stops a running run", async () => {
  await using w = await dashWorld();
  const { id, done } = await w.begin("Take your time wait:never");
  const path = `/api/runs/${id}/stop`;
  await refused(await w.post(path, { "x-pitroom-key": null }), 401, "bad_key");
  await refused(await w.post(path, { "x-pitroom-key": "guess" }), 401, "bad_key");
  await refused(await w.post(path, { "x-pitroom-key": w.pass.key.slice(1) }), 401, "bad_key");
  await refused(await w.post(path, { cookie: null }), 401, "no_session");
  await refused(await w.post(path, { origin: null }), 403, "bad_origin");
  await refused(await w.post(path, { origin: "http://evil.example" }), 403, "bad_origin");
  await refused(await w.post(path, { origin: "https://127.0.0.1:7878" }), 403, "bad_origin");
  await refused(await w.post(path, { origin: "http://localhost:7878" }), 403, "bad_origin");
  await refused(await w.post(path, { origin: "null" }), 403, "bad_origin");
  // None of them did anything.
  assert.equal((await w.engine.get(id)).state, "running");

  const body = await json<WriteResponse>(await w.post(path));
  assert.equal(body.card.id, id);
  assert.equal(body.card.outcome, "stopped");
  assert.equal(body.card.canStop, false);
  assert.equal((await done).outcome, "stopped");
  await refused(await w.post(path), 409, "not_running");
  // localhost is as good as 127.0.0.1 when Host and Origin agree.
  await refused(
    await w.post(path, { host: "localhost:7878", origin: "http://localhost:7878" }),
    409,
    "not_running",
  );
  await refused(await w.post(`/api/runs/${MISSING}/stop`), 404, "no_run");
  await refused(await w.post("/api/runs/last/stop"), 400, "bad_id");
});

Deno.test("POST discard: only a finished isolate run whose patch is neither applied nor discarded", async () => {
  await using w = await dashWorld();
  const read = await w.run("Where is the answer?");
  await refused(await w.post(`/api/runs/${read.id}/discard`), 409, "not_discardable");
  const iso = await w.run("Change it edit:src/app.ts", "isolate");
  const path = `/api/runs/${iso.id}/discard`;
  await refused(await w.post(path, { "x-pitroom-key": null }), 401, "bad_key");
  await refused(await w.post(path, { cookie: null }), 401, "no_session");
  await refused(await w.post(path, { origin: "http://evil.example" }), 403, "bad_origin");
  const copy = iso.isolation!.copyRoot;
  assert.ok((await Deno.stat(copy)).isDirectory);
  const body = await json<WriteResponse>(await w.post(path));
  assert.deepEqual(body.card.isolation, { applied: false, discarded: true });
  assert.equal(body.card.canDiscard, false);
  assert.equal(body.card.attention, null);
  await assert.rejects(Deno.stat(copy), Deno.errors.NotFound);
  // The patch stays.
  assert.equal((await w.get(`/api/runs/${iso.id}/patch`)).status, 200);
  await refused(await w.post(path), 409, "not_discardable");
  const applied = await w.run("Change it again edit:README.md", "isolate");
  await w.engine.apply(applied.id);
  await refused(await w.post(`/api/runs/${applied.id}/discard`), 409, "not_discardable");
});

Deno.test("nothing else writes: other methods and routes are 404", async () => {
  await using w = await dashWorld();
  const read = await w.run("Where is the answer?");
  for (const path of ["/api/runs", `/api/runs/${read.id}/apply`, `/api/runs/${read.id}/revert`]) {
    await refused(await w.post(path), 404, "not_found");
  }
  for (const method of ["PUT", "DELETE", "PATCH"]) {
    const res = await w.app.request(`/api/runs/${read.id}`, {
      method,
      headers: { host: HOST, ...passHeaders(w.pass) },
    });
    await refused(res, 404, "not_found");
  }
  assert.equal((await w.engine.get(read.id)).state, "done");
});
