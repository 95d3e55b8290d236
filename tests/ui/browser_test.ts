/**
 * The dashboard page in a real browser (Debian's Chromium through playwright-core, driven from a
 * child process: tests/support/browser.ts), against the real dashboard server on a loopback port
 * and a real engine whose runs a fake worker plays (tests/support/fake_backend.ts). The worker
 * waits on gate files the test creates, so each step happens when the test says (no sleeps).
 * Saves screenshots of Live, a panel and Stats in both themes under tests/ui/screenshots/.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEngine, type RunReport } from "../../src/engine/mod.ts";
import type { RunSpec } from "../../src/workers/types.ts";
import { browserMissing, openBrowser } from "../support/browser.ts";
import { serveDashboard } from "../support/dash_server.ts";
import { engineWorld } from "../support/engine_world.ts";
import { fakeBackend, type FakeStep } from "../support/fake_backend.ts";
import { tempDir, tempRepo, waitFor } from "../support/temp.ts";
import { takePicture } from "./_pictures.ts";

const missing = browserMissing();
if (missing !== null) console.warn(`Skipping the dashboard's browser tests: ${missing}`);

const SHOTS = new URL("./screenshots/", import.meta.url).pathname;

const GREET = `/** Greets someone. */
export function greet(name: string): string {
  // Say it once.
  return \`Hello, \${name}!\`;
}

export const TIMES = 3;
`;

/** The fake worker's script for a task: the task's tags say what it does. */
/**
 * A dashboard on a port below the kernel's ephemeral range (Linux: 32768-60999), found free by
 * trying ports in turn: a test that stops it and starts another on the same port needs that no
 * other process be handed the port meanwhile, and a port-0 bind (every other test's server) never
 * is one below the range. On a port of that range, a parallel test file's server took it between
 * the stop and the restart in a CI run (AddrInUse).
 */
function serveBelowEphemeral(engine: ReturnType<typeof createEngine>) {
  const start = 20_000 + Math.floor(Math.random() * 10_000);
  for (let port = start; port < start + 200; port++) {
    try {
      return serveDashboard(engine, { port });
    } catch (error) {
      if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    }
  }
  throw new Error(`no free port in ${start}-${start + 199}`);
}

function steps(gates: string) {
  return (spec: RunSpec): FakeStep[] => {
    const gate = /\[gate:(\w+)\]/.exec(spec.prompt)?.[1];
    const out: FakeStep[] = [{ tool: "read", target: "src/app.ts" }];
    if (gate) out.push({ waitFile: join(gates, gate) });
    if (spec.prompt.includes("[hang]")) out.push({ hang: true });
    out.push({ tool: "shell", target: "deno task check" });
    if (spec.prompt.includes("[edit]")) {
      out.push({ writeFile: "src/greet.ts", content: GREET });
    }
    out.push({ tokens: { input: 12_000, output: 800 } });
    out.push({ answer: "The parser lives in src/app.ts; it reads one line at a time." });
    return out;
  };
}

Deno.test({
  name:
    "the dashboard page in Chromium: live cards, panels with diffs, history, theme, Stop, guards",
  ignore: missing !== null,
  async fn(t) {
    await using gateDir = await tempDir("pitroom-gates-");
    const gates = gateDir.path;
    await using world = await engineWorld(
      await tempRepo({ "src/app.ts": "export const app = 1;\n", "README.md": "# Demo\n" }),
      steps(gates),
    );
    // Codex is played by the same fake worker, so a crew can mix two workers.
    const codex = fakeBackend(steps(gates), "codex");
    const engine = createEngine(world.sys, {
      backends: (name) => name === "codex" ? codex : world.backend,
    });
    await using dash = serveDashboard(engine);
    await using browser = openBrowser()!;
    const page = browser.page;
    const runs: Promise<RunReport>[] = [];
    // Whatever happens, no run outlives the test (a failed step may leave one at its gate).
    await using _runs = {
      async [Symbol.asyncDispose]() {
        await engine.stop({ live: true });
        await Promise.allSettled(runs);
      },
    };
    const start = (task: string, mode: "read" | "write" | "isolate" = "read") => {
      const run = engine.run({ task, worker: "opencode", mode });
      runs.push(run);
      return run;
    };
    const start2 = (task: string, worker: "opencode" | "codex") => {
      const run = engine.run({ task, worker, group: "docs" });
      runs.push(run);
      return run;
    };
    const idOf = async (task: string) => {
      let id: string | undefined;
      await waitFor(async () => {
        id = (await engine.list({ recent: 20 })).find((r) => r.task === task)?.id;
        return id !== undefined;
      }, { timeoutMs: 15_000, what: `the run of "${task}" to exist` });
      return id!;
    };
    const card = (id: string) => `article.card[data-run="${id}"]`;

    // An old run, finished before the page was open: History must find it.
    const old = await start("Find the zebra parser in the codebase");
    assert.equal(old.state, "done", old.message);

    // The address `pitroom dash` prints: a one-time token, then the clean address.
    await page.goto(await dash.link());
    await page.waitFor("[data-tile=running]");

    await t.step("a card appears when a run starts and finishes without a reload", async () => {
      await page.eval("window.__loaded = true");
      const task = "Explain how the app starts [gate:first]";
      void start(task);
      const id = await idOf(task);
      await page.waitFor(`${card(id)}[data-state=running]`);
      // The worker's first tool call moves the card on while the run waits at its gate.
      await page.waitForFunction(
        `document.querySelector('${card(id)} [data-count=tools]')?.textContent === "1 tool"`,
      );
      assert.equal(await page.text(`${card(id)} .last`), "read src/app.ts");
      await Deno.writeTextFile(join(gates, "first"), "");
      await page.waitFor(`${card(id)}[data-state=done]`);
      assert.equal(await page.eval("window.__loaded"), true, "the page did not reload");
    });

    await t.step(
      "a crew is one card: its runs, worker mix, progress and counts, live",
      async () => {
        const crew = `article.crew[data-group=docs]`;
        const foot = (text: string) =>
          page.waitForFunction(
            `document.querySelector('${crew} .card-foot')?.textContent.includes(${
              JSON.stringify(text)
            })`,
          );
        const progress = (pct: number) =>
          page.waitFor(`${crew} [role=progressbar][aria-valuenow="${pct}"]`);
        const first = start2("Document the parser [gate:crewA]", "opencode");
        const second = start2("Document the app [gate:crewB]", "codex");
        await page.goto(`${dash.url}#live`);
        await foot("2 running");
        await progress(0);
        assert.match(await page.text(`${crew} .crew-head`), /crew docs\s*2 runs/);
        assert.deepEqual(
          await page.eval<string[]>(
            `[...document.querySelectorAll('${crew} .mix .chip')].map((e) => e.textContent)`,
          ),
          ["codex (default model) ×1", "opencode (default model) ×1"],
        );
        assert.equal(await page.count(`${crew}.ph-running`), 1);
        await Deno.writeTextFile(join(gates, "crewA"), "");
        assert.equal((await first).state, "done");
        await foot("1 running");
        await foot("1 done");
        await progress(50);
        await Deno.writeTextFile(join(gates, "crewB"), "");
        assert.equal((await second).state, "done");
        await foot("2 done");
        await progress(100);
        assert.equal(await page.count(`${crew}.ph-running`), 0, "an ended crew no longer pulses");
        assert.match(await page.text(`${crew} .card-foot`), /0 running.*[1-9][\d.]*k tok/);
        // Its runs' own cards say which crew they are in.
        const ids = [(await first).id, (await second).id];
        for (const id of ids) assert.match(await page.text(`${card(id)}`), /crew docs/);
      },
    );

    let edited = "";
    await t.step("a panel opens with a highlighted, line-numbered diff", async () => {
      const task = "Add a greet function [edit]";
      const report = await start(task, "isolate");
      assert.equal(report.state, "done", report.message);
      edited = report.id;
      await page.waitFor(`${card(edited)}[data-state=done]`);
      await page.click(`${card(edited)} .card-head`);
      await page.waitFor(`${card(edited)} .panel table.diff[data-language=typescript]`);
      assert.equal(await page.eval("location.hash"), `#${edited}`);
      assert.match(await page.text(`${card(edited)} .diff-file .path`), /src\/greet\.ts/);
      // Keywords, strings and comments are marked; new lines are numbered 1..7.
      assert.equal(await page.text(`${card(edited)} .diff .l-add .t-k`), "export");
      assert.ok(await page.count(`${card(edited)} .diff .l-add .t-s`) >= 1);
      assert.ok(await page.count(`${card(edited)} .diff .l-add .t-c`) >= 1);
      const numbers = await page.eval<string[]>(
        `[...document.querySelectorAll('${
          card(edited)
        } .diff .l-add td.no:nth-child(2)')].map((e) => e.textContent)`,
      );
      assert.deepEqual(numbers, ["1", "2", "3", "4", "5", "6", "7"]);
      assert.ok(await page.count(`${card(edited)} [data-action=discard]`) === 1);
      // The steps, the answer and the details are there too.
      assert.match(await page.text(`${card(edited)} .timeline`), /deno task check/);
      assert.match(await page.text(`${card(edited)} .details`), /opencode/);
      // The address opens it: a fresh load of `#<id>` shows the panel.
      await page.reload();
      await page.waitFor(`${card(edited)} .panel table.diff`);
    });

    await t.step("history search finds an old run and opens it as the same card", async () => {
      await page.goto(`${dash.url}#history`);
      await page.fill("input[name=q]", "zebra");
      await page.press("input[name=q]", "Enter");
      await page.waitFor(`.hits[data-query=zebra] ${card(old.id)}`);
      assert.equal(await page.count(".hit"), 1);
      assert.match(await page.text(".hit .snippet mark"), /zebra/i);
      await page.click(`${card(old.id)} .card-head`);
      await page.waitFor(`${card(old.id)} .panel .answer`);
      assert.equal(await page.eval("location.hash"), `#history/${old.id}`);
    });

    await t.step(
      "#<run-id> opens a run Live does not list, and says so of one that is not there",
      async () => {
        // A second server that lists no finished run on Live.
        await using bare = serveDashboard(engine, { recent: 0 });
        await page.goto(`${await bare.link()}#${old.id}`);
        await page.waitFor(`${card(old.id)}.open .panel .answer`);
        assert.equal(await page.count("article.card"), 1);
        await page.goto(`${bare.url}#20200101-000000-0000`);
        await page.waitFor("[data-missing]");
        assert.match(await page.text("[data-missing]"), /20200101-000000-0000/);
      },
    );

    await t.step(
      "the theme toggle switches the theme and is remembered after a reload",
      async () => {
        await page.goto(`${dash.url}#live`);
        await page.colorScheme("light");
        await page.eval(`localStorage.removeItem("pitroom.theme")`);
        await page.reload();
        await page.waitForFunction("document.documentElement.dataset.theme === 'light'");
        await page.click("[data-theme-toggle]");
        await page.waitForFunction("document.documentElement.dataset.theme === 'dark'");
        await page.reload();
        await page.waitFor("[data-tile=running]");
        // The theme is set by an effect after the render: wait for it, never read it at once.
        await page.waitForFunction("document.documentElement.dataset.theme === 'dark'");
        await page.click("[data-theme-toggle]");
        await page.waitForFunction("document.documentElement.dataset.theme === 'light'");
      },
    );

    await t.step(
      "Stop stops a running worker, through the button and its confirmation",
      async () => {
        const task = "Take your time [hang]";
        const running = start(task);
        const id = await idOf(task);
        await page.goto(`${dash.url}#${id}`);
        await page.waitFor(`${card(id)}[data-state=running] [data-action=stop]`);
        await page.click(`${card(id)} [data-action=stop]`);
        assert.equal(await engineState(engine, id), "running", "the first press only asks");
        await page.click(`${card(id)} [data-confirm=stop]`);
        const report = await running;
        assert.equal(report.outcome, "stopped");
        await page.waitFor(`${card(id)}[data-state=problem]`);
        assert.match(await page.text(`${card(id)} .pill`), /stopped/);
      },
    );

    // Up to here the page logged no error (the answer about the run that is not there aside;
    // the page names its favicon, so the browser asks for no /favicon.ico that would be refused).
    const errors = (await browser.consoleErrors()).filter((e) =>
      !e.includes("/api/runs/20200101-000000-0000")
    );
    assert.deepEqual(errors, []);

    await t.step(
      "a POST without the key, and one from another origin, are refused",
      async () => {
        const task = "Keep going [hang]";
        const running = start(task);
        const id = await idOf(task);
        // From the page itself, without the key (the cookie goes along).
        const status = await page.eval<number>(
          `fetch("/api/runs/${id}/stop", { method: "POST" }).then((r) => r.status)`,
        );
        assert.equal(status, 401);
        // From a page of another origin (another loopback port: the same site, so the browser
        // sends it the dashboard's cookie), with and without a guessed key.
        await using evil = evilSite(dash.url, id);
        const other = await browser.newPage();
        await other.goto(evil.url);
        // A mark in the DOM, not a global: waitForFunction re-checks only when the DOM changes.
        await other.waitFor("html[data-done]", { state: "attached" });
        assert.equal(await engineState(engine, id), "running");
        const events = await engine.events(id);
        assert.ok(!events.some((e) => e.type === "run.finished"));
        // What that server got of the dashboard: its cookie (cookies do not tell ports apart).
        // With it, a worker's server gets the bare page, never a run, nor the key.
        const cookie = evil.cookies().find((c) => c.startsWith(`pitroom-dash-${dash.port}=`));
        assert.ok(cookie, evil.cookies().join("; "));
        const asWorker = (path: string, init: RequestInit = {}) =>
          fetch(new URL(path, dash.url), { ...init, headers: { cookie, ...init.headers } })
            .then(async (r) => [r.status, await r.text()] as const);
        assert.equal((await asWorker("/"))[0], 200);
        for (const path of ["/api/runs", `/api/runs/${id}/events`, "/api/stream"]) {
          assert.equal((await asWorker(path))[0], 401, path);
        }
        const claim = await asWorker("/api/session", {
          method: "POST",
          headers: { origin: dash.url.slice(0, -1) },
        });
        assert.equal(claim[0], 409, claim[1]);
        assert.equal(
          (await asWorker(`/api/runs/${id}/stop`, {
            method: "POST",
            headers: { origin: dash.url.slice(0, -1) },
          }))[0],
          401,
        );
        assert.equal(await engineState(engine, id), "running");
        await engine.stop({ runs: [id] });
        assert.equal((await running).outcome, "stopped");
      },
    );

    await t.step(
      "one click: the token leaves the address bar; reloads and new tabs stay in; a used address is refused",
      async () => {
        await browser.freshContext();
        const link = await dash.link();
        await page.goto(`${link}#stats`);
        await page.waitFor(".chart svg");
        assert.equal(await page.eval("location.href"), `${dash.url}#stats`);
        // The token's page was replaced: going back does not reach it.
        assert.equal(await page.eval("history.length"), 2);
        await page.reload();
        await page.waitFor(".chart svg");
        const tab = await browser.newPage();
        await tab.goto(`${dash.url}#live`);
        await tab.waitFor("[data-tile=running]");
        await tab.waitFor("[data-connecting]", { state: "detached" });
        // The same address in another browser (a new context: no cookie, no storage).
        await browser.freshContext();
        await page.goto(link);
        assert.match(await page.text("body"), /opened already/);
        assert.match(await page.text("body"), /pitroom dash/);
        // The plain address lets nobody in.
        await page.goto(dash.url);
        assert.match(await page.text("h1"), /needs a fresh address/);
      },
    );

    await t.step(
      "after a restart the open page says how to get back in; an old address is refused",
      async () => {
        const first = serveBelowEphemeral(engine);
        let firstUp = true;
        await using _first = {
          async [Symbol.asyncDispose]() {
            if (firstUp) await first[Symbol.asyncDispose]();
          },
        };
        const old = await first.link();
        await browser.freshContext();
        await page.goto(await first.link());
        await page.waitFor("[data-tile=running]");
        await page.waitFor("[data-connecting]", { state: "detached" });
        const port = first.port;
        firstUp = false;
        await first[Symbol.asyncDispose]();
        // The same port, a new start: the page's stream reconnects and is refused.
        await using second = serveDashboard(engine, { port });
        await page.waitFor("[data-denied]", { timeoutMs: 20_000 });
        assert.match(await page.text("[data-denied]"), /pitroom dash/);
        await page.goto(old);
        assert.match(await page.text("body"), /not this dashboard's/);
        // A new address lets the same browser in again.
        await page.goto(await second.link());
        await page.waitFor("[data-tile=running]");
        // Back to the first dashboard for the screenshots.
        await browser.freshContext();
        await page.goto(await dash.link());
        await page.waitFor("[data-tile=running]");
        await browser.consoleErrors();
      },
    );

    await t.step("screenshots of Live, a panel and Stats in light and dark", async () => {
      await Deno.mkdir(SHOTS, { recursive: true });
      for (const scheme of ["light", "dark"] as const) {
        await page.eval(`localStorage.removeItem("pitroom.theme")`);
        await page.colorScheme(scheme);
        await page.goto(`${dash.url}#live`);
        await page.reload();
        await page.waitFor(`${card(edited)}`);
        await page.screenshot(`${SHOTS}live-${scheme}.png`);
        await page.goto(`${dash.url}#${edited}`);
        await page.waitFor(`${card(edited)} .panel table.diff`);
        await page.screenshot(`${SHOTS}panel-${scheme}.png`, { fullPage: true });
        // The README's picture (docs/dashboard.png is a copy): the top of the panel.
        if (scheme === "light") {
          await page.screenshot(`${SHOTS}readme.png`, {
            fullPage: true,
            clip: { x: 0, y: 0, width: 1280, height: 1040 },
          });
          if (Deno.env.get("PITROOM_UPDATE_PICTURES") === "1") {
            await takePicture(`${SHOTS}readme.png`);
          }
        }
        await page.goto(`${dash.url}#stats`);
        await page.waitFor(".chart svg");
        await page.screenshot(`${SHOTS}stats-${scheme}.png`);
      }
    });
  },
});

async function engineState(engine: ReturnType<typeof createEngine>, id: string) {
  return (await engine.get(id)).state;
}

/**
 * A page on another origin (another port of 127.0.0.1) that tries to press Stop on the
 * dashboard; `cookies()` are the Cookie headers the browser sent it.
 */
function evilSite(dashUrl: string, id: string) {
  const target = `${dashUrl}api/runs/${id}/stop`;
  const html = `<!doctype html><script src="/evil.js"></script>`;
  const js = `
    Promise.allSettled([
      fetch(${JSON.stringify(target)}, { method: "POST", mode: "no-cors" }),
      fetch(${JSON.stringify(target)}, { method: "POST", mode: "no-cors", credentials: "include" }),
      fetch(${JSON.stringify(target)}, {
        method: "POST",
        credentials: "include",
        headers: { "X-Pitroom-Key": "0123456789abcdef0123456789abcdef" },
      }),
    ]).then(() => { document.documentElement.dataset.done = "1"; });`;
  const cookies: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const cookie = req.headers.get("cookie");
    if (cookie !== null) cookies.push(...cookie.split("; "));
    const path = new URL(req.url).pathname;
    return path === "/evil.js"
      ? new Response(js, { headers: { "content-type": "text/javascript" } })
      : new Response(html, { headers: { "content-type": "text/html" } });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    cookies: () => cookies,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}
