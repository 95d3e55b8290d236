/**
 * The dashboard names the user's work, in a real browser (Chromium through playwright-core,
 * tests/support/browser.ts) against the real dashboard server on a loopback port and runs of
 * every kind made by the real engine with the scripted worker (tests/ui/_kinds.ts): titles and
 * verdict badges of reviews, audits and plan tasks with their findings and disputed claims;
 * cached, applied, not-applied, discarded and reverted states on the card and in the detail;
 * local human times; answers in Markdown with raw HTML kept as text; and the polish list
 * (plurals, a negative saving, the duration that wrapped, a running panel's tokens, whole chart
 * labels, the favicon). Saves a screenshot of a card of each kind (PITROOM_SHOTS, when set).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { browserMissing, type BrowserPage, openBrowser } from "../support/browser.ts";
import { serveDashboard } from "../support/dash_server.ts";
import { tempDir, waitFor } from "../support/temp.ts";
import { kindsWorld, LONG_MODEL, makeKindRuns } from "./_kinds.ts";

const missing = browserMissing();
if (missing !== null) console.warn(`Skipping the dashboard's card tests: ${missing}`);

/** Where the screenshots of a card of each kind go, when set. */
const SHOTS = Deno.env.get("PITROOM_SHOTS");

const card = (id: string) => `article.card[data-run="${id}"]`;

/** The texts of the elements `selector` finds. */
function texts(page: BrowserPage, selector: string): Promise<string[]> {
  return page.eval<string[]>(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.textContent.trim())`,
  );
}

/** The page's visible text and every title attribute. */
function pageText(page: BrowserPage): Promise<string> {
  return page.eval<string>(
    `document.body.innerText + "\\n" + [...document.querySelectorAll("[title]")].map((e) => e.title).join("\\n")`,
  );
}

/** No epoch milliseconds, no ISO time with milliseconds, anywhere in what the page shows. */
function assertHumanTimes(text: string, where: string): void {
  assert.doesNotMatch(text, /\b1\d{12}\b/, `${where}: an epoch-ms time`);
  assert.doesNotMatch(text, /\d{4}-\d\d-\d\dT\d\d:\d\d/, `${where}: an ISO time`);
  assert.doesNotMatch(text, /\d\d:\d\d:\d\d\.\d{3}/, `${where}: a time with milliseconds`);
}

async function shot(page: BrowserPage, id: string, name: string): Promise<void> {
  if (SHOTS === undefined) return;
  const box = await page.eval<{ x: number; y: number; width: number; height: number }>(
    `(() => { const r = document.querySelector('${card(id)}').getBoundingClientRect();
      return { x: r.x - 8, y: r.y + scrollY - 8, width: r.width + 16, height: r.height + 16 }; })()`,
  );
  await page.screenshot(join(SHOTS, `h2-${name}.png`), { fullPage: true, clip: box });
}

Deno.test({
  name:
    "the dashboard in Chromium names reviews, audits and plan tasks, their verdicts and states; a running panel's counts are its card's",
  ignore: missing !== null,
  async fn(t) {
    await using gates = await tempDir("pitroom-gates-");
    await using w = await kindsWorld();
    const runs = await makeKindRuns(w.engine, w.repo.path);
    await using dash = serveDashboard(w.engine);
    await using browser = openBrowser()!;
    const page = browser.page;
    // A Content-Security-Policy violation (an inline handler the page let through) is marked.
    await page.goto(await dash.link());
    await page.waitFor("[data-tile=running]");
    await page.waitFor("[data-connecting]", { state: "detached" });
    await page.eval(`document.addEventListener("securitypolicyviolation", (e) => {
      document.documentElement.dataset.csp = e.violatedDirective;
    })`);

    await t.step(
      "a review card reads Review of RUN · SPEC PASS · QUALITY NEEDS-FIXES with its findings",
      async () => {
        const c = card(runs.review);
        assert.equal(await page.text(`${c} .task`), `Review of ${runs.plan}`);
        assert.deepEqual(await texts(page, `${c} .verdicts [data-badge]`), [
          "SPEC PASS",
          "QUALITY NEEDS-FIXES",
        ]);
        assert.equal(await page.attr(`${c} [data-badge=SPEC]`, "class"), "badge tone-good");
        assert.equal(await page.attr(`${c} [data-badge=QUALITY]`, "class"), "badge tone-warn");
        assert.deepEqual(await texts(page, `${c} .points .ref`), ["src/app.ts:1", "README.md:1"]);
        assert.match(await page.text(`${c} .points`), /Important.*the export has no doc comment/);
        assert.doesNotMatch(await page.text(c), /You review|Task review/);
        // Open: the findings in full, and the prompt folded away.
        await page.click(`${c} .card-head`);
        await page.waitFor(`${c} .panel [data-verdict=review]`);
        assert.match(
          await page.text(`${c} .panel [data-verdict=review]`),
          /SPEC PASS.*QUALITY NEEDS-FIXES/s,
        );
        assert.equal(await page.count(`${c} .panel [data-verdict=review] .point`), 2);
        assert.equal(await page.eval(`document.querySelector('${c} details.prompt').open`), false);
        await page.click(`${c} .card-head`);
        await page.waitFor(`${c} .panel`, { state: "detached" });
        await shot(page, runs.review, "review");
      },
    );

    await t.step(
      "a plan task's card shows its plan and task title, its status and the review on it",
      async () => {
        const c = card(runs.plan);
        assert.equal(await page.text(`${c} .task`), "Plan plan.md · task 1: Fix the answer");
        assert.deepEqual(await texts(page, `${c} .verdicts [data-badge]`), [
          "STATUS DONE",
          "SPEC PASS",
          "QUALITY NEEDS-FIXES",
        ]);
        assert.doesNotMatch(await page.text(c), /Implementer brief/);
        await shot(page, runs.plan, "plan");
      },
    );

    await t.step(
      "an audit shows AGREE/PARTLY/DISAGREE as a badge and its disputed claims with path:line",
      async () => {
        const c = card(runs.audit);
        assert.equal(await page.text(`${c} .task`), `Audit of ${runs.read}`);
        assert.deepEqual(await texts(page, `${c} [data-badge]`), ["AUDIT PARTLY"]);
        assert.deepEqual(await texts(page, `${c} .points .ref`), ["src/app.ts:1"]);
        assert.doesNotMatch(await page.text(c), /You are auditing/);
        await shot(page, runs.audit, "audit");
        // The audited run: the badge on its card, and in its detail the verdict, the claims and
        // who audited when, in local human time (no raw dump, no epoch ms).
        const r = card(runs.read);
        assert.deepEqual(await texts(page, `${r} [data-badge]`), ["AUDIT PARTLY"]);
        await page.click(`${r} .card-head`);
        await page.waitFor(`${r} .panel [data-verdict=audit] .point`);
        assert.deepEqual(await texts(page, `${r} .panel [data-verdict=audit] .ref`), [
          "src/app.ts:1",
        ]);
        const row = await page.text(`${r} [data-audit-detail]`);
        assert.match(row, /^PARTLY · by codex · started today \d\d:\d\d · took \d/);
        assertHumanTimes(await pageText(page), "the audited run's panel");
      },
    );

    await t.step(
      "Markdown in an answer is rendered; raw HTML is text and nothing runs",
      async () => {
        const a = `${card(runs.read)} .panel .answer`;
        await page.waitFor(a);
        assert.equal(await page.text(`${a} strong`), "41");
        assert.equal(await page.text(`${a} p code`), "src/app.ts:1");
        assert.deepEqual(await texts(page, `${a} ul > li`), [
          "it is exported",
          "see the docs or this",
        ]);
        assert.equal(await page.text(`${a} em`), "exported");
        // The safe link is a link that opens apart; the javascript: one is not a link.
        assert.equal(await page.count(`${a} a`), 1);
        assert.equal(await page.attr(`${a} a`, "href"), "https://deno.com/manual");
        assert.equal(await page.attr(`${a} a`, "rel"), "noopener noreferrer nofollow");
        // The HTML is shown as it was written, and none of it became an element or ran.
        const shown = await page.text(a);
        assert.match(shown, /<img src=x onerror="document\.documentElement\.dataset\.xss='img'">/);
        assert.match(shown, /<script>document\.documentElement\.dataset\.xss = 'script'<\/script>/);
        assert.equal(await page.count(`${a} img, ${a} script`), 0);
        assert.equal(await page.eval("document.documentElement.dataset.xss ?? null"), null);
        assert.equal(await page.eval("document.documentElement.dataset.csp ?? null"), null);
        assert.equal(await page.eval("document.title"), "Pitroom");
        await shot(page, runs.read, "audited-panel");
        await page.click(`${card(runs.read)} .card-head`);
      },
    );

    await t.step(
      "cached, applied, not-applied, discarded and reverted runs each show their state, on the card and in the detail",
      async () => {
        const states = [
          [
            runs.cached,
            "cached",
            "cached",
            /Answered from the cache: the answer of run \S+, which ended today \d\d:\d\d/,
          ],
          [runs.applied, "applied", "applied", /^today \d\d:\d\d to your tree \(1 file\)$/],
          [runs.plan, "not-applied", "not applied", /pitroom apply /],
          [runs.discarded, "discarded", "discarded", /discarded today \d\d:\d\d/],
          [runs.reverted, "reverted", "reverted", /taken back out of your tree/],
        ] as const;
        for (const [id, state, label, detail] of states) {
          const c = card(id);
          assert.equal(await page.text(`${c} [data-disposition]`), label, state);
          assert.equal(await page.attr(`${c} [data-disposition]`, "data-disposition"), state);
          await page.goto(`${dash.url}#${id}`);
          await page.waitFor(`${c} .panel [data-disposition-detail=${state}]`);
          assert.match(await page.text(`${c} [data-disposition-detail]`), detail, state);
          assertHumanTimes(await pageText(page), `the panel of the ${state} run`);
        }
        // Each state looks different: no two badges share a class.
        const classes = await page.eval<string[]>(
          `[...new Set([...document.querySelectorAll(".card-tags [data-disposition]")].map((e) => e.className))]`,
        );
        assert.equal(classes.length, 5, classes.join(", "));
        await page.goto(`${dash.url}#live`);
        await shot(page, runs.cached, "cached");
        await shot(page, runs.applied, "applied");
        await shot(page, runs.reverted, "reverted");
      },
    );

    await t.step("plurals, a negative saving, the duration on one line", async () => {
      await page.waitFor(card(runs.cached));
      // One tool call, one step, one file: singular.
      assert.equal(await page.text(`${card(runs.cached)} [data-count=tools]`), "0 tools");
      assert.equal(await page.text(`${card(runs.dear)} [data-count=tools]`), "1 tool");
      assert.equal(await page.text(`${card(runs.plan)} [data-count=files]`), "1 file");
      // A run that cost more than the primary model: "-$0.2x", never "$-0.2x".
      assert.match(await page.text(`${card(runs.dear)} [data-saved]`), /^saved -\$0\.\d\d$/);
      await page.goto(`${dash.url}#${runs.dear}`);
      await page.waitFor(`${card(runs.dear)} [data-row=Saved]`);
      assert.match(
        await page.text(`${card(runs.dear)} [data-row=Saved] dd`),
        /^-\$0\.\d\d: the worker cost \$0\.25, \S+ would have cost \$0\.\d+$/,
      );
      assert.doesNotMatch(await pageText(page), /\$-/);
      await page.goto(`${dash.url}#live`);
      // The card of a long worker label in a crew: its time stays on the first line, whole.
      const c = card(runs.long);
      await page.waitFor(c);
      assert.match(await page.text(`${c} .worker`), new RegExp(LONG_MODEL));
      const geometry = await page.eval<{ pill: number; time: number; lines: number }>(
        `(() => {
          const time = document.querySelector('${c} .time');
          return {
            pill: document.querySelector('${c} .pill').getBoundingClientRect().top,
            time: time.getBoundingClientRect().top,
            lines: time.getClientRects().length,
            height: time.getBoundingClientRect().height,
          };
        })()`,
      );
      assert.ok(Math.abs(geometry.time - geometry.pill) < 4, JSON.stringify(geometry));
      assert.equal(geometry.lines, 1);
      await shot(page, runs.long, "long");
    });

    await t.step("chart labels are whole and inside their charts", async () => {
      await page.goto(`${dash.url}#stats`);
      await page.waitForFunction(`document.querySelectorAll(".chart").length >= 6`);
      // Per worker and model: each chart names the long model whole, nothing cut to "…".
      const perTarget = await page.eval<string[]>(
        `[...document.querySelectorAll(".chart")]
          .filter((f) => f.querySelector("figcaption").textContent.includes("per worker and model"))
          .map((f) => f.innerText)`,
      );
      assert.equal(perTarget.length, 3);
      for (const text of perTarget) {
        assert.ok(text.includes(`opencode:${LONG_MODEL}`), text);
        assert.ok(!text.includes("…"), text);
      }
      const clipped = await page.eval<string[]>(
        `[...document.querySelectorAll(".bar-list .bar-label")]
          .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
          .map((e) => e.textContent)`,
      );
      assert.deepEqual(clipped, []);
      // Per day: every text of each SVG inside its box.
      await page.waitForFunction(`document.querySelectorAll(".chart svg").length >= 3`);
      const outside = await page.eval<string[]>(
        `[...document.querySelectorAll(".chart svg")].flatMap((svg) => {
          const v = svg.viewBox.baseVal;
          return [...svg.querySelectorAll("text")].filter((t) => {
            const b = t.getBBox();
            return b.x < v.x || b.y < v.y || b.x + b.width > v.x + v.width ||
              b.y + b.height > v.y + v.height;
          }).map((t) => t.textContent);
        })`,
      );
      assert.deepEqual(outside, []);
    });

    await t.step("a running panel's tokens are its card's (one source)", async () => {
      const gate = (name: string) => join(gates.path, name);
      const task = `Count the tokens [gates:${gates.path}]`;
      const running = w.engine.run({ task, worker: "opencode" });
      await using _run = {
        async [Symbol.asyncDispose]() {
          await Deno.writeTextFile(gate("one"), "");
          await Deno.writeTextFile(gate("two"), "");
          await running;
        },
      };
      let id = "";
      await waitFor(async () => {
        id = (await w.engine.list({ recent: 5 })).find((r) => r.task === task)?.id ?? "";
        return id !== "";
      }, { timeoutMs: 15_000, what: "the run to exist" });
      // The panel opens while nothing is counted yet; then the worker reports 14.2k tokens.
      await page.goto(`${dash.url}#${id}`);
      await page.waitFor(`${card(id)}[data-state=running] [data-detail=tokens]`);
      assert.match(await page.text(`${card(id)} [data-detail=tokens]`), /^0:/);
      await Deno.writeTextFile(gate("one"), "");
      await page.waitForFunction(
        `document.querySelector('${card(id)} [data-count=tokens]')?.textContent === "14k tok"`,
      );
      await page.waitForFunction(
        `document.querySelector('${
          card(id)
        } [data-detail=tokens]')?.textContent.startsWith("14k: 14k in")`,
        5_000,
      );
      assert.equal(await page.attr(card(id), "data-state"), "running");
    });

    await t.step(
      "a review that ends while the page is open puts its verdict on the reviewed run's card",
      async () => {
        const plan = await w.engine.run({
          plan: join(w.repo.path, "plan.md"),
          step: 1,
          worker: "opencode",
          mode: "isolate",
        });
        await page.goto(`${dash.url}#live`);
        await page.waitFor(`${card(plan.id)} [data-badge=STATUS]`);
        assert.equal(await page.count(`${card(plan.id)} [data-badge=SPEC]`), 0);
        // The review's record reaches the page by its events; the reviewed run's changed record
        // has no event of its own: the page reads its card again when the review ends.
        const review = await w.engine.review({ run: plan.id, worker: "codex" });
        await page.waitFor(`${card(review.id)}[data-state=done] [data-badge=SPEC]`);
        await page.waitFor(`${card(plan.id)} [data-badge=QUALITY][data-value=NEEDS-FIXES]`);
      },
    );
    await t.step("the page has a favicon, and the browser logged no error", async () => {
      assert.equal(await page.attr("link[rel=icon]", "href"), "/favicon.svg");
      const loaded = await page.eval<number>(`new Promise((resolve) => {
        const img = new Image();
        img.onload = () => resolve(img.naturalWidth);
        img.onerror = () => resolve(-1);
        img.src = document.querySelector("link[rel=icon]").href;
      })`);
      assert.ok(loaded > 0, `the favicon did not load (${loaded})`);
      assert.deepEqual(await browser.consoleErrors(), []);
    });
  },
});
