/**
 * An open dashboard in a real browser (Chromium through playwright-core) sees finished runs
 * change without a reload: a write run reverted and an isolate run applied by the engine (as the
 * CLI would) turn "reverted" and "applied" on their cards, and the open panel of the applied run
 * says where it went, through the stream's `run.changed` events. The real dashboard server on a
 * loopback port, runs made by the real engine with the scripted worker (tests/ui/_kinds.ts).
 */
import assert from "node:assert/strict";
import { browserMissing, openBrowser } from "../support/browser.ts";
import { serveDashboard } from "../support/dash_server.ts";
import { kindsWorld } from "./_kinds.ts";

const missing = browserMissing();
if (missing !== null) console.warn(`Skipping the dashboard's live change test: ${missing}`);

const card = (id: string) => `article.card[data-run="${id}"]`;

Deno.test({
  name: "an open page shows a run turn reverted and another applied, without reloading",
  ignore: missing !== null,
  async fn() {
    await using w = await kindsWorld();
    const isolate = await w.engine.run({
      task: "Add greet [edit]",
      worker: "opencode",
      mode: "isolate",
    });
    const write = await w.engine.run({
      task: "Add a file in place [in place]",
      worker: "opencode",
      mode: "write",
    });
    assert.deepEqual([isolate.state, write.state], ["done", "done"]);
    await using dash = serveDashboard(w.engine);
    await using browser = openBrowser()!;
    const page = browser.page;
    await page.goto(await dash.link());
    await page.waitFor("[data-connecting]", { state: "detached" });
    await page.waitFor(card(isolate.id));
    assert.equal(
      await page.attr(`${card(isolate.id)} [data-disposition]`, "data-disposition"),
      "not-applied",
    );
    assert.equal(await page.count(`${card(write.id)} [data-disposition]`), 0);
    // A mark a reload would wipe out.
    await page.eval(`window.pitroomNotReloaded = true`);
    // The isolate run's panel is open while it is applied.
    await page.click(`${card(isolate.id)} .card-head`);
    await page.waitFor(`${card(isolate.id)} .panel [data-disposition-detail=not-applied]`);
    assert.equal(await page.count(`${card(isolate.id)} .panel [data-action=discard]`), 1);

    await w.engine.revert(write.id);
    await page.waitFor(`${card(write.id)} [data-disposition=reverted]`);
    assert.equal(await page.text(`${card(write.id)} [data-disposition]`), "reverted");

    await w.engine.apply(isolate.id);
    await page.waitFor(`${card(isolate.id)} [data-disposition=applied]`);
    assert.equal(await page.text(`${card(isolate.id)} [data-disposition]`), "applied");
    await page.waitFor(`${card(isolate.id)} .panel [data-disposition-detail=applied]`);
    assert.match(
      await page.text(`${card(isolate.id)} [data-disposition-detail]`),
      /to your tree \(1 file\)/,
    );
    // No Discard for a copy whose patch is applied.
    assert.equal(await page.count(`${card(isolate.id)} .panel [data-action=discard]`), 0);
    assert.equal(await page.eval<boolean>(`window.pitroomNotReloaded === true`), true);
  },
});
