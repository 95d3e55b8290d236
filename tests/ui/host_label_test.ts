/**
 * A run on a host, in a real browser (Chromium through playwright-core, tests/support/browser.ts)
 * against the real dashboard server: its card names the worker and the host (`codex (default model) on box`) and
 * its details hold a Host row. The run is a real isolate run of the engine with the scripted fake
 * worker; its record then gets the host as the engine writes it for a `-H box` run (`host` and the
 * frozen `settings.host`), so no SSH server is needed. A run without a host shows neither.
 */
import assert from "node:assert/strict";
import { createEngine } from "../../src/engine/mod.ts";
import { writeRecord } from "../../src/store/runs.ts";
import { browserMissing, openBrowser } from "../support/browser.ts";
import { serveDashboard } from "../support/dash_server.ts";
import { engineWorld } from "../support/engine_world.ts";
import { fakeBackend, type FakeStep } from "../support/fake_backend.ts";
import { tempRepo } from "../support/temp.ts";

const missing = browserMissing();
if (missing !== null) console.warn(`Skipping the dashboard's host label test: ${missing}`);

const card = (id: string) => `article.card[data-run="${id}"]`;

const steps = (): FakeStep[] => [
  { tool: "read", target: "src/app.ts" },
  { writeFile: "src/app.ts", content: "export const app = 2;\n" },
  { answer: "Set app to 2." },
];

Deno.test({
  name:
    "the dashboard in Chromium names a run's host on its card (codex (model) on box) and in a Host row",
  ignore: missing !== null,
  async fn() {
    await using world = await engineWorld(
      await tempRepo({ "src/app.ts": "export const app = 1;\n" }),
      steps,
    );
    const codex = fakeBackend(steps, "codex");
    const engine = createEngine(world.sys, { backends: () => codex, dir: world.repo.path });
    const remote = await engine.run({
      task: "Set app to 2 on the box",
      worker: "codex",
      mode: "isolate",
    });
    const local = await engine.run({ task: "Set app to 2 here", worker: "codex", mode: "isolate" });
    assert.equal(remote.state, "done", remote.message);
    // What the engine writes for a run made with `-H box`: the host's name and its frozen entry.
    const record = await engine.get(remote.id);
    assert.ok(record.settings);
    await writeRecord(world.paths, {
      ...record,
      host: "box",
      settings: { ...record.settings, host: { ssh: "me@box", dir: "~/pitroom-work" } },
    });

    await using dash = serveDashboard(engine);
    await using browser = openBrowser()!;
    const page = browser.page;
    await page.goto(await dash.link());
    await page.waitFor(card(remote.id));
    assert.equal(await page.text(`${card(remote.id)} .worker`), "codex (default model) on box");
    assert.equal(await page.text(`${card(local.id)} .worker`), "codex (default model)");
    await page.click(`${card(remote.id)} .card-head`);
    await page.waitFor(`${card(remote.id)} [data-row=Host]`);
    assert.equal(await page.text(`${card(remote.id)} [data-row=Host] dd`), "box");
    await page.click(`${card(local.id)} .card-head`);
    await page.waitFor(`${card(local.id)} [data-row=Worker]`);
    assert.equal(await page.count(`${card(local.id)} [data-row=Host]`), 0);
  },
});
