/**
 * Runs of every kind the dashboard names, made by real runs of the engine with the scripted fake
 * worker (tests/support/fake_backend.ts): a plan task (isolate, not applied), a review of it
 * (SPEC PASS, QUALITY NEEDS-FIXES, two findings), a read answer in Markdown with raw HTML in it
 * and its audit (PARTLY, one disputed claim), a cached answer, applied, discarded and reverted
 * runs, a run that cost more than the primary model would have, and one of a long model name
 * (for the duration wrap and the chart labels). The dashboard's API test and the browser test
 * read the same runs.
 */
import { join } from "node:path";
import { createEngine, type Engine } from "../../src/engine/mod.ts";
import type { RunSpec } from "../../src/workers/types.ts";
import { engineWorld } from "../support/engine_world.ts";
import { fakeBackend, type FakeStep } from "../support/fake_backend.ts";
import { tempRepo } from "../support/temp.ts";

export const PLAN = `# Answer service

Make the answer right.

## Spec

The answer is 42.

## Task 1: Fix the answer

**Worker:** cheap

Set \`answer\` in \`src/app.ts\` to 42.
`;

/** A read answer in Markdown, with raw HTML that must stay text. */
export const MARKDOWN_ANSWER = [
  "The answer lives in `src/app.ts:1` and is **41**.",
  "",
  "- it is *exported*",
  "- see [the docs](https://deno.com/manual) or [this](javascript:document.title='pwned')",
  "",
  `<img src=x onerror="document.documentElement.dataset.xss='img'">`,
  "<script>document.documentElement.dataset.xss = 'script'</script>",
].join("\n");

export const REVIEW_ANSWER = [
  "SPEC: PASS",
  "QUALITY: NEEDS-FIXES",
  "FINDINGS:",
  "- [Important] src/app.ts:1 — the export has no doc comment",
  "- [Minor] README.md:1 — the title is terse",
  "CANNOT VERIFY:",
  "- none",
].join("\n");

export const AUDIT_ANSWER = [
  "Checked the file.",
  "",
  "AUDIT: PARTLY",
  "DISPUTED:",
  "- src/app.ts:1 — the answer is 41 there, the claim that it is exported as 42 is wrong",
].join("\n");

/** The long model name of one run (its card's label is long; so is its stats label). */
export const LONG_MODEL = "fake/a-rather-long-model-name-for-the-card";

function script(spec: RunSpec): FakeStep[] {
  const p = spec.prompt;
  // `[gates:DIR]`: tokens come between the files `one` and `two` of DIR appearing.
  const gates = /\[gates:([^\]]+)\]/.exec(p)?.[1];
  if (gates !== undefined) {
    return [
      { tool: "read", target: "src/app.ts" },
      { waitFile: join(gates, "one") },
      { tokens: { input: 14_000, output: 200 } },
      { waitFile: join(gates, "two") },
      { answer: "Done." },
    ];
  }
  if (p.includes("You are auditing an answer")) return [{ answer: AUDIT_ANSWER }];
  if (p.includes("SPEC:") && p.includes("QUALITY:")) {
    return [{ tool: "read", target: "src/app.ts" }, { answer: REVIEW_ANSWER }];
  }
  if (p.includes("Fix the answer")) {
    return [
      { tool: "read", target: "src/app.ts" },
      { editFile: "src/app.ts", old: "41", new: "42" },
      { tokens: { input: 9_000, output: 400 } },
      { answer: "Set the answer to 42 in src/app.ts:1.\n\nSTATUS: DONE\nOPEN ISSUES:\n- none" },
    ];
  }
  if (p.includes("[markdown]")) {
    return [{ tool: "read", target: "src/app.ts" }, { answer: MARKDOWN_ANSWER }];
  }
  if (p.includes("[cacheable]")) {
    return [{ tool: "read", target: "src/app.ts" }, { answer: "It is set in src/app.ts:1." }];
  }
  if (p.includes("[edit]")) {
    return [
      { tool: "read", target: "src/app.ts" },
      { writeFile: "src/greet.ts", content: "export const greet = 1;\n" },
      { answer: "Added src/greet.ts." },
    ];
  }
  if (p.includes("[in place]")) {
    return [
      { tool: "read", target: "src/app.ts" },
      { writeFile: "src/here.ts", content: "export const here = 1;\n" },
      { answer: "Added src/here.ts." },
    ];
  }
  if (p.includes("[dear]")) {
    return [
      { tool: "read", target: "src/app.ts" },
      { tokens: { input: 2_000, output: 100, cost: 0.25 } },
      { answer: "Expensive but done." },
    ];
  }
  return [{ tool: "read", target: "src/app.ts" }, { answer: "Done." }];
}

/** The runs, by what they show. */
export interface KindRuns {
  plan: string;
  review: string;
  read: string;
  audit: string;
  cachedFrom: string;
  cached: string;
  applied: string;
  discarded: string;
  reverted: string;
  dear: string;
  long: string;
}

/** A world with the runs made (the answer cache on: `cacheDays`). */
export async function kindsWorld() {
  const repo = await tempRepo({
    "src/app.ts": "export const answer = 41;\n",
    "README.md": "# app\n",
  });
  await Deno.writeTextFile(join(repo.path, "plan.md"), PLAN);
  const world = await engineWorld(repo, script, { config: { cacheDays: 1 } });
  const codex = fakeBackend(script, "codex");
  const engine: Engine = createEngine(world.sys, {
    backends: (name) => (name === "codex" ? codex : world.backend),
    dir: repo.path,
  });
  return { ...world, engine };
}

function done(report: { id: string; state: string; message?: string | undefined }): string {
  if (report.state !== "done") {
    throw new Error(`run ${report.id} ended ${report.state}: ${report.message}`);
  }
  return report.id;
}

/** Makes the runs, one after the other. */
export async function makeKindRuns(engine: Engine, repo: string): Promise<KindRuns> {
  const plan = done(
    await engine.run({ plan: join(repo, "plan.md"), step: 1, worker: "opencode", mode: "isolate" }),
  );
  const reviewed = await engine.review({ run: plan, worker: "codex" });
  const review = done(reviewed.report!);
  const read = done(
    await engine.run({ task: "Where is the answer? [markdown]", worker: "opencode" }),
  );
  const audited = await engine.audit({ run: read, worker: "codex" });
  const cachedFrom = done(
    await engine.run({ task: "Where is the answer set? [cacheable]", worker: "opencode" }),
  );
  const cached = done(
    await engine.run({ task: "Where is the answer set? [cacheable]", worker: "opencode" }),
  );
  const applied = done(
    await engine.run({ task: "Add greet [edit]", worker: "opencode", mode: "isolate" }),
  );
  await engine.apply(applied);
  const discarded = done(
    await engine.run({ task: "Add greet again [edit]", worker: "opencode", mode: "isolate" }),
  );
  await engine.discard(discarded);
  const reverted = done(
    await engine.run({ task: "Add a file in place [in place]", worker: "opencode", mode: "write" }),
  );
  await engine.revert(reverted);
  const dear = done(await engine.run({ task: "Do it the dear way [dear]", worker: "opencode" }));
  const long = done(
    await engine.run({
      task: "A run with a long model name",
      worker: `opencode:${LONG_MODEL}`,
      group: "crew-with-a-name",
    }),
  );
  return {
    plan,
    review,
    read,
    audit: audited.audit,
    cachedFrom,
    cached,
    applied,
    discarded,
    reverted,
    dear,
    long,
  };
}
