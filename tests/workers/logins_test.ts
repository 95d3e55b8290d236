/**
 * Where each CLI keeps its login: a worker sees its own (where its environment points it) and
 * none of the others', neither where their variables point them nor at their default places.
 */
import assert from "node:assert/strict";
import { loginPaths, otherLogins } from "../../src/workers/logins.ts";

const ENV = {
  HOME: "/home/u",
  CLAUDE_CONFIG_DIR: "/home/u/.pitroom-claude",
  CODEX_HOME: "/srv/codex",
  GEMINI_CLI_HOME: "/srv/gemini",
  XDG_DATA_HOME: "/srv/data",
};

Deno.test("otherLogins() hides the other CLIs' logins where their variables point and at the default places", () => {
  const others = otherLogins("opencode", ENV);
  for (
    const path of [
      "/home/u/.pitroom-claude/.credentials.json",
      "/home/u/.pitroom-claude/.claude.json",
      // A login made with the defaults stays there.
      "/home/u/.claude/.credentials.json",
      "/home/u/.claude.json",
      "/srv/codex/auth.json",
      "/home/u/.codex/auth.json",
      "/srv/gemini/.gemini/oauth_creds.json",
      "/home/u/.gemini/oauth_creds.json",
    ]
  ) {
    assert.ok(others.includes(path), `${path} is not hidden: ${others.join(" ")}`);
  }
  assert.ok(!others.some((p) => p.includes("opencode")), "opencode's own login stays");
  assert.equal(new Set(others).size, others.length, "each path once");
});

Deno.test("loginPaths() is the running CLI's own login, where its environment points it", () => {
  assert.deepEqual(loginPaths("opencode", ENV), [
    "/srv/data/opencode/auth.json",
    "/srv/data/opencode/mcp-auth.json",
  ]);
  assert.deepEqual(loginPaths("claude", ENV), [
    "/home/u/.pitroom-claude/.credentials.json",
    "/home/u/.pitroom-claude/.device-keys.json",
    "/home/u/.pitroom-claude/.claude.json",
  ]);
  // Verify runs no CLI: every login is hidden, opencode's at both places.
  const all = otherLogins(null, ENV);
  assert.ok(all.includes("/srv/data/opencode/auth.json"));
  assert.ok(all.includes("/home/u/.local/share/opencode/auth.json"));
});
