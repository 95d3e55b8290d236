import assert from "node:assert/strict";
import { inFlags } from "../../src/cli/fields.ts";

Deno.test("the engine's field names are printed as the CLI's flags, other backticked text as it is", () => {
  assert.equal(
    inFlags("`link` is for isolate runs (`mode: isolate`): a write run works in your tree"),
    "--link is for isolate runs (-i): a write run works in your tree",
  );
  assert.equal(inFlags("`step` needs `plan: PLAN`"), "--step needs --plan PLAN");
  assert.equal(inFlags("Choose one of `worker` and `tier`"), "Choose one of -W and --tier");
  assert.equal(
    inFlags("leave out `mode: write`; see `pitroom show x --patch` and `git status`"),
    "leave out -w; see `pitroom show x --patch` and `git status`",
  );
  assert.equal(inFlags("use `effort: high`"), "use --effort high");
  assert.equal(inFlags("`caps.maxSteps` must be more than 0"), "--max-steps must be more than 0");
  assert.equal(inFlags("`mode: sideways` and `unknown`"), "`mode: sideways` and `unknown`");
});
