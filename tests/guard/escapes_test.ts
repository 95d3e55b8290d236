/**
 * The adversarial suite: every escape of `_escapes.ts` run directly under the exact environment a
 * worker gets, in a fresh copy of a repository with the user's own work in every state. Each is
 * refused with nothing the guard keeps changed, or it is a known gap (README: what the guard
 * does not cover) and this suite shows that it is real. The whole table runs twice: in the
 * sandbox a worker gets (src/confine/sandbox/), where most gaps close, and with the guard alone, as on a
 * machine without a sandbox.
 */
import assert from "node:assert/strict";
import { type Escape, ESCAPES, type Expect } from "./_escapes.ts";
import {
  type EscapeWorld,
  escapeWorld,
  fingerprint,
  OWN_KEY,
  type Scene,
  SECRETS,
} from "./_world.ts";

function fill(command: string, places: Record<string, string>): string {
  return command.replace(/\{([A-Z]+)\}/g, (whole, name: string) => places[name] ?? whole);
}

function changedKeys(before: Record<string, string>, after: Record<string, string>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => before[k] !== after[k]).sort();
}

async function attempt(w: EscapeWorld, escape: Escape): Promise<void> {
  const scene = await w.scene(escape.name);
  try {
    await attemptIn(w, scene, escape);
  } finally {
    await w.endLeftovers(scene);
  }
}

/** With the sandbox, a refusal may be the sandbox's own, and a listed override wins. */
function expected(w: EscapeWorld, escape: Escape): Expect {
  if (!w.sandboxed) return escape.expect;
  if (escape.sandboxed !== undefined) return escape.sandboxed;
  const expect = escape.expect;
  if (!("refused" in expect)) return expect;
  return { refused: new RegExp(`${expect.refused.source}|Read-only file system`) };
}

async function attemptIn(w: EscapeWorld, scene: Scene, escape: Escape): Promise<void> {
  if (escape.command.includes("{MCPURL}")) await w.startMcp();
  const places = w.places(scene);
  if (escape.setup !== undefined) {
    const set = await w.plain(scene, fill(escape.setup, places));
    assert.equal(set.code, 0, `setup of "${escape.name}": ${set.stderr}`);
  }
  const staged = escape.indexCaches === true;
  const before = { ...await fingerprint(scene.dir, { staged }), ...await w.outside(scene) };
  const r = await w.guarded(scene, fill(escape.command, places));
  const after = {
    ...await fingerprint(scene.dir, { staged }),
    ...await w.outside(scene, { settle: w.sandboxed }),
  };
  const out = `${r.stdout}${r.stderr}`;
  const context = `"${escape.name}" (exit ${r.code}): ${out.slice(0, 1500)}`;
  for (const [name, value] of Object.entries(SECRETS)) {
    assert.ok(!out.includes(value), `${name} leaked in ${context}`);
  }
  const expect = expected(w, escape);
  const changed = changedKeys(before, after).filter((k) =>
    !(escape.indexCaches && k === "git:index")
  );
  if ("refused" in expect) {
    assert.notEqual(r.code, 0, `not refused: ${context}`);
    assert.match(out, expect.refused, context);
    assert.deepEqual(changed, [], `changed ${changed.join(", ")}: ${context}`);
  } else if ("contained" in expect) {
    assert.deepEqual(changed, [], `changed ${changed.join(", ")}: ${context}`);
  } else if ("hidden" in expect) {
    assert.doesNotMatch(out, expect.hidden, `read what is hidden: ${context}`);
    assert.deepEqual(changed, [], `changed ${changed.join(", ")}: ${context}`);
  } else if ("scrubbed" in expect) {
    assert.equal(r.code, 0, context);
  } else if (expect.shows) {
    assert.match(out, expect.shows, `the gap did not show: ${context}`);
  } else {
    assert.notDeepEqual(changed, [], `the gap is closed, update the table: ${context}`);
  }
}

Deno.test("the escape table holds at least 60 attempts, each named once", () => {
  assert.ok(ESCAPES.length >= 60, `${ESCAPES.length} escapes`);
  assert.equal(new Set(ESCAPES.map((e) => e.name)).size, ESCAPES.length);
});

for (const sandbox of [true, false]) {
  const how = sandbox ? "in the sandbox" : "with the guard alone (no sandbox)";
  Deno.test(`every escape ${how} is refused or held, or is a listed gap`, async (t) => {
    await using w = await escapeWorld({ sandbox });
    for (const escape of ESCAPES) {
      const expect = expected(w, escape);
      const kind = "gap" in expect
        ? "gap"
        : "contained" in expect
        ? "held"
        : "hidden" in expect
        ? "hidden"
        : "refused";
      await t.step({
        name: `${kind}: ${escape.name}`,
        ignore: escape.needs !== undefined && !w.has(escape.needs),
        fn: () => attempt(w, escape),
      });
    }
  });
}

Deno.test("the worker keeps its own provider's key and nothing of Pitroom's", async () => {
  await using w = await escapeWorld();
  const scene = await w.scene("env");
  const r = await w.guarded(scene, "env");
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^OPENAI_API_KEY=${OWN_KEY.OPENAI_API_KEY}$`, "m"));
  assert.match(r.stdout, /^PITROOM_INSIDE_RUN=20250101-000000-esca$/m);
  assert.doesNotMatch(r.stdout, /^PITROOM_STATE_DIR=/m);
  assert.match(r.stdout, /^GIT_TERMINAL_PROMPT=0$/m);
});

Deno.test("in the sandbox the codex worker still reads its own login, and its guard works", async () => {
  await using w = await escapeWorld({ sandbox: true });
  const scene = await w.scene("own-login");
  const r = await w.guarded(scene, 'cat "$HOME/.codex/auth.json" && git status --short');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^codex-own-login/);
});

Deno.test("control: without the guard the same escapes do change the user's repository", async () => {
  await using w = await escapeWorld();
  for (
    const command of [
      "git commit -qm escaped",
      "git update-ref refs/heads/main HEAD~1",
      "git stash -q",
      "git branch escaped",
      "git push -q origin main:refs/heads/escaped",
      "git config alias.x commit",
    ]
  ) {
    const scene = await w.scene("control");
    const before = await fingerprint(scene.dir);
    const r = await w.plain(scene, command);
    assert.equal(r.code, 0, `${command}: ${r.stderr}`);
    assert.notDeepEqual(changedKeys(before, await fingerprint(scene.dir)), [], command);
  }
});
