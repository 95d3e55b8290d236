/**
 * The dashboard's door through `app.request()`: without a pass nothing but the health answer
 * and the door's script is served (the page, its assets, every API route, the stream and both
 * writes are 401, a page or JSON saying to run `pitroom dash`); a one-time token opens a session
 * once (HttpOnly, SameSite=Strict cookie named by the port) and the page claims its key once; a
 * used, expired, damaged or earlier start's token is refused; the owner's single request.
 */
import assert from "node:assert/strict";
import type { ApiError, SessionResponse } from "../../../src/server/dash/api_types.ts";
import { Door, mintToken, TOKEN_TTL_MS } from "../../../src/server/dash/door.ts";
import { FakeClock } from "../../support/clock.ts";
import { dashWorld, enter, HOST, passHeaders, testDoor } from "./_world.ts";

const MISSING = "20200101-000000-abcd";

/** Every route a worker would try, and how. */
function routes(id: string): Array<[string, string]> {
  return [
    ["GET", "/"],
    ["GET", "/app.js"],
    ["GET", "/app.css"],
    ["GET", "/api/runs"],
    ["GET", `/api/runs/${id}`],
    ["GET", `/api/runs/${id}/events`],
    ["GET", `/api/runs/${id}/patch`],
    ["GET", "/api/history"],
    ["GET", "/api/stats"],
    ["GET", "/api/savings"],
    ["GET", "/api/summary"],
    ["GET", "/api/models"],
    ["GET", "/api/stream"],
    ["POST", `/api/runs/${id}/stop`],
    ["POST", `/api/runs/${id}/discard`],
    ["POST", "/api/session"],
  ];
}

async function status(res: Response): Promise<{ status: number; text: string }> {
  return { status: res.status, text: await res.text() };
}

Deno.test("without a pass: every route is 401 but the health answer, the door's script and the icon", async () => {
  await using w = await dashWorld();
  const done = await w.run("Where is the answer?");
  for (const [method, path] of routes(done.id)) {
    // As a worker would send it: the right Host and Origin, no cookie, no key.
    const res = await w.app.request(path, {
      method,
      headers: { host: HOST, origin: `http://${HOST}` },
    });
    const { status: code, text } = await status(res);
    assert.equal(code, 401, `${method} ${path}: ${text}`);
    assert.equal(res.headers.get("cache-control"), "no-store", path);
    if (path.startsWith("/api/")) {
      const body = JSON.parse(text) as ApiError;
      assert.equal(body.error.code, "no_session", path);
      assert.match(body.error.hint!, /pitroom dash/);
    } else {
      assert.match(res.headers.get("content-type")!, /text\/html/);
      assert.match(text, /Run <code>pitroom dash<\/code>/);
    }
  }
  // A guessed cookie, a key without the cookie: the same.
  for (
    const headers of [
      { cookie: "pitroom-dash-7878=0123456789abcdef0123456789abcdef" },
      { "x-pitroom-key": w.pass.key },
    ]
  ) {
    const res = await w.app.request("/api/runs", { headers: { host: HOST, ...headers } });
    assert.equal((await status(res)).status, 401);
  }
  // The run was not stopped, discarded or read.
  assert.equal((await w.engine.get(done.id)).state, "done");
  for (const path of ["/api/health", "/door.js", "/favicon.svg"]) {
    const res = await w.app.request(path, { headers: { host: HOST } });
    assert.equal((await status(res)).status, 200, path);
  }
  // The tab's icon is an SVG with nothing in it that runs (it tells nothing, so it is open).
  const icon = await w.app.request("/favicon.svg", { headers: { host: HOST } });
  assert.equal(icon.headers.get("content-type"), "image/svg+xml");
  const svg = await icon.text();
  assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.doesNotMatch(svg, /<script|\bon\w+=|href=/i);
  // It is still the local Host's only.
  const elsewhere = await w.app.request("/favicon.svg", { headers: { host: "evil.example" } });
  assert.equal((await status(elsewhere)).status, 403);
});

Deno.test("a one-time token opens one session: an HttpOnly, SameSite=Strict cookie, then the key once", async () => {
  await using w = await dashWorld();
  const token = await w.door.mint();
  const res = await w.app.request(`/?token=${token}`, { headers: { host: HOST } });
  const html = await res.text();
  assert.equal(res.status, 200, html);
  assert.equal(res.headers.get("cache-control"), "no-store");
  // The door page replaces the address by the clean one; it holds nothing secret.
  assert.match(html, /<script src="\/door\.js"><\/script>/);
  assert.equal(html.includes(token), false);
  const setCookie = res.headers.get("set-cookie")!;
  assert.match(setCookie, /^pitroom-dash-7878=[0-9a-f]{32}; Path=\/; HttpOnly; SameSite=Strict$/);
  const cookie = setCookie.split(";")[0]!;
  const script = await w.app.request("/door.js", { headers: { host: HOST } });
  assert.equal(await script.text(), 'location.replace("/" + location.hash);\n');

  // The same token again: refused without the cookie; with it, the browser just goes on.
  const again = await w.app.request(`/?token=${token}`, { headers: { host: HOST } });
  const refusedPage = await again.text();
  assert.equal(again.status, 401);
  assert.match(refusedPage, /opened already/);
  assert.equal(again.headers.get("set-cookie"), null);
  const inside = await w.app.request(`/?token=${token}`, { headers: { host: HOST, cookie } });
  await inside.body?.cancel();
  assert.equal(inside.status, 200);
  assert.equal(inside.headers.get("set-cookie"), null);

  // The cookie loads the page; the API also needs the key, which the page claims once.
  const page = await w.app.request("/", { headers: { host: HOST, cookie } });
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<meta name="pitroom-session" content="fresh">/);
  const noKey = await w.app.request("/api/runs", { headers: { host: HOST, cookie } });
  assert.equal((JSON.parse(await noKey.text()) as ApiError).error.code, "bad_key");
  const claim = (origin: string | null) =>
    w.app.request("/api/session", {
      method: "POST",
      headers: { host: HOST, cookie, ...(origin === null ? {} : { origin }) },
    });
  assert.equal((await status(await claim(null))).status, 403);
  assert.equal((await status(await claim("http://evil.example"))).status, 403);
  const first = await claim(`http://${HOST}`);
  const { key } = await first.json() as SessionResponse;
  assert.match(key, /^[0-9a-f]{32}$/);
  assert.equal(first.headers.get("cache-control"), "no-store");
  const second = await claim(`http://${HOST}`);
  assert.equal((JSON.parse(await second.text()) as ApiError).error.code, "claimed");
  assert.equal(second.status, 409);

  const runs = await w.app.request("/api/runs", {
    headers: { host: HOST, ...passHeaders({ cookie, key }) },
  });
  await runs.body?.cancel();
  assert.equal(runs.status, 200);
  // The stream takes the key in its address (EventSource sends no headers).
  const stream = await w.app.request(`/api/stream?recent=0&key=${key}`, {
    headers: { host: HOST, cookie },
  });
  assert.equal(stream.status, 200);
  assert.match(stream.headers.get("content-type")!, /text\/event-stream/);
  await stream.body?.cancel();
  const wrong = await w.app.request(`/api/stream?key=${key.slice(1)}x`, {
    headers: { host: HOST, cookie },
  });
  assert.equal((await status(wrong)).status, 401);
});

Deno.test("expired, damaged and other starts' tokens are refused, each saying why", async () => {
  const clock = new FakeClock();
  await using w = await dashWorld({ door: testDoor(() => clock.now()), clock });
  const old = await w.door.mint();
  await clock.advance(TOKEN_TTL_MS + 1000);
  const cases: Array<[string, string]> = [
    [old, "expired"],
    ["", "not this dashboard's"],
    ["nonsense", "not this dashboard's"],
    [`${old.slice(0, -1)}${old.endsWith("0") ? "1" : "0"}`, "not this dashboard's"],
    // Minted with the key of an earlier start (every start has its own).
    [
      await mintToken("f".repeat(64), { now: clock.now(), nonce: "0123456789abcdef" }),
      "not this dashboard's",
    ],
  ];
  for (const [token, why] of cases) {
    const res = await w.app.request(`/?token=${encodeURIComponent(token)}`, {
      headers: { host: HOST },
    });
    const text = await res.text();
    assert.equal(res.status, 401, `${token}: ${text}`);
    assert.match(text, new RegExp(why), token);
  }
  // A new token minted now is good.
  const fresh = await w.app.request(`/?token=${await w.door.mint()}`, { headers: { host: HOST } });
  await fresh.body?.cancel();
  assert.equal(fresh.status, 200);
});

Deno.test("the owner's single request: a one-time token in X-Pitroom-Token, spent by it", async () => {
  await using w = await dashWorld();
  const token = await w.door.mint();
  const headers = { host: HOST, "x-pitroom-token": token };
  const first = await w.app.request("/api/runs", { headers });
  await first.body?.cancel();
  assert.equal(first.status, 200);
  const again = await w.app.request("/api/runs", { headers });
  assert.equal((JSON.parse(await again.text()) as ApiError).error.code, "token_used");
  // It opens no session, and a page is not served for it.
  assert.equal(first.headers.get("set-cookie"), null);
  const page = await w.app.request("/", {
    headers: { host: HOST, "x-pitroom-token": await w.door.mint() },
  });
  assert.equal((await status(page)).status, 401);
  assert.equal(
    (await status(
      await w.app.request(`/api/runs/${MISSING}/stop`, {
        method: "POST",
        headers: { host: HOST, origin: `http://${HOST}`, "x-pitroom-token": await w.door.mint() },
      }),
    )).status,
    404,
  );
});

Deno.test("a session's key works from every tab; a browser let in twice keeps both keys", async () => {
  await using w = await dashWorld();
  const second = await enter(w.app, w.door);
  for (const pass of [w.pass, second, { cookie: w.pass.cookie, key: second.key }]) {
    const res = await w.app.request("/api/summary", {
      headers: { host: HOST, ...passHeaders(pass) },
    });
    await res.body?.cancel();
    assert.equal(res.status, 200);
  }
});

Deno.test("Door: at most 1000 sessions, the oldest goes first", () => {
  let n = 0;
  const door = new Door({
    key: "k",
    now: () => 0,
    randomHex: () => (n++).toString(16).padStart(32, "0"),
  });
  const first = door.open();
  const key = door.claim(first)!;
  assert.ok(door.knows(key));
  for (let i = 0; i < 1000; i++) door.open();
  assert.equal(door.admits(first), false);
  assert.equal(door.knows(key), false);
});
