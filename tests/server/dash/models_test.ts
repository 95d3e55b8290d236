/**
 * `GET /api/models` asks the worker CLIs, which takes seconds: one listing answers the requests
 * of a minute (on a fake clock here, with an engine that counts the listings).
 */
import assert from "node:assert/strict";
import type { Engine } from "../../../src/engine/mod.ts";
import { createDashboardApp } from "../../../src/server/dash/app.ts";
import { FakeClock } from "../../support/clock.ts";
import { enter, passHeaders, testDoor } from "./_world.ts";

Deno.test("GET /api/models reuses one listing for a minute, then asks again", async () => {
  let listings = 0;
  const engine = {
    models: () => {
      listings++;
      return Promise.resolve([{ worker: "opencode", installed: false, models: [], more: 0 }]);
    },
  } as unknown as Engine;
  const clock = new FakeClock();
  const door = testDoor(() => clock.now());
  const app = createDashboardApp(engine, { door, port: 7878, clock });
  const pass = await enter(app, door);
  const get = async () => {
    const res = await app.request("/api/models", {
      headers: { host: "127.0.0.1:7878", ...passHeaders(pass) },
    });
    assert.equal(res.status, 200);
    return await res.json();
  };
  assert.equal((await get())[0].worker, "opencode");
  await get();
  assert.equal(listings, 1);
  await clock.advance(59_000);
  await get();
  assert.equal(listings, 1);
  await clock.advance(2_000);
  await get();
  assert.equal(listings, 2);
});
