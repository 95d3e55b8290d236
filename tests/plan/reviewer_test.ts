import assert from "node:assert/strict";
import { resolveSettings } from "../../src/engine/core/settings.ts";
import type { Config } from "../../src/store/config.ts";
import { chooseReviewer } from "../../src/engine/review/worker.ts";
import { COMMANDS } from "../../src/cli/commands.ts";
import { commandHelp } from "../../src/cli/help.ts";
import { TEMPLATES } from "../../src/engine/plan/templates.ts";

function settings(config: Config) {
  return resolveSettings({
    config,
    env: { get: () => undefined },
    flags: {},
    configPath: "/cfg/config.json",
    stateDir: "/state",
  }).settings;
}

Deno.test("chooseReviewer() takes the review tier when it is another backend", () => {
  const s = settings({ worker: "opencode", tiers: { review: "codex" } });
  assert.deepEqual(chooseReviewer(s, { implementer: "opencode", range: false }), {
    tier: "review",
    warnings: [],
  });
});

Deno.test("chooseReviewer() looks past the implementer's backend for another one", () => {
  const s = settings({
    worker: "opencode",
    fallback: ["claude"],
    tiers: { review: "opencode", capable: "opencode:big" },
  });
  assert.deepEqual(chooseReviewer(s, { implementer: "opencode", range: false }), {
    worker: "claude",
    warnings: [],
  });
});

Deno.test("chooseReviewer() warns when only the implementer's backend is configured", () => {
  const s = settings({ worker: "opencode" });
  const choice = chooseReviewer(s, { implementer: "opencode", range: false });
  assert.equal(choice.worker, undefined);
  assert.match(choice.warnings[0] ?? "", /Only one backend is configured \("opencode"\)/);
  const forced = chooseReviewer(s, { worker: "opencode:x", implementer: "opencode", range: false });
  assert.match(forced.warnings[0] ?? "", /the implementer's own backend/);
});

Deno.test("chooseReviewer() puts a range review on the capable tier", () => {
  const s = settings({ worker: "opencode", tiers: { review: "codex" } });
  assert.deepEqual(chooseReviewer(s, { range: true }), { tier: "capable", warnings: [] });
});

Deno.test("`pitroom help plan` names every template the binary ships", () => {
  const help = commandHelp(COMMANDS.find((c) => c.name === "plan")!);
  for (const t of Object.values(TEMPLATES)) assert.match(help, new RegExp(t.file));
  for (const t of Object.values(TEMPLATES)) assert.ok(t.text.length > 200, t.file);
});
