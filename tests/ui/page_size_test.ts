/**
 * The page's weight: everything a first load fetches (the HTML, ui/dist/app.js, ui/dist/app.css,
 * the favicon, as the dashboard serves them) stays at most 400 KB uncompressed, highlighting included, and
 * the HTML loads nothing from elsewhere and runs nothing inline.
 */
import assert from "node:assert/strict";
import { createEngine } from "../../src/engine/mod.ts";
import { createDashboardApp } from "../../src/server/dash/app.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";
import { enter, passHeaders, testDoor } from "../server/dash/_world.ts";

/** The budget, in bytes (400 KB). */
const BUDGET = 400_000;

Deno.test("the dashboard's first load is at most 400 KB uncompressed and loads nothing from elsewhere", async () => {
  await using state = await tempDir("pitroom-state-");
  const engine = createEngine(testSys({ stateDir: state.path }));
  const door = testDoor();
  const app = createDashboardApp(engine, { door, port: 7878 });
  const pass = await enter(app, door);
  const get = async (path: string) => {
    const res = await app.request(path, {
      headers: { host: "127.0.0.1:7878", ...passHeaders(pass) },
    });
    assert.equal(res.status, 200, path);
    return await res.text();
  };
  const html = await get("/");
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  assert.deepEqual(assets.map((a) => a.replace(/\?.*/, "")).sort(), [
    "/app.css",
    "/app.js",
    "/favicon.svg",
  ]);
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, "an inline script");
  assert.doesNotMatch(html, /<style|style="/, "an inline style");
  const bodies = [html, ...await Promise.all(assets.map(get))];
  const bytes = bodies.reduce((n, b) => n + new TextEncoder().encode(b).length, 0);
  assert.ok(bytes <= BUDGET, `the page weighs ${bytes} bytes, more than ${BUDGET}`);
  // The bundle is built from our sources (ui/src), not a placeholder.
  assert.ok(bodies[2]!.length > 10_000 || bodies[1]!.length > 10_000, "the built page is there");
});
