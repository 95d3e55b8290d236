/**
 * Every start of Pitroom passes its V8 flags (src/sys/real.ts `V8_FLAGS`): V8 refuses a code cache made
 * under other compiler flags, so a Pitroom process started without them (a host, a dashboard, the
 * test's or the checkout's `deno run`) would recompile each chunk the others cached, and back.
 * The compiled binary's are checked by tests/dist/compile_test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { selfCommand, V8_FLAGS, V8_FLAGS_ARG } from "../../src/sys/real.ts";
import { pitroomArgv, REPO_ROOT } from "../support/pitroom.ts";
import { fakePitroomArgv } from "../crew/_world.ts";

Deno.test("the V8 flags are one argument of compiler flags", () => {
  assert.ok(V8_FLAGS.length > 0);
  assert.equal(V8_FLAGS_ARG, `--v8-flags=${V8_FLAGS.join(",")}`);
});

Deno.test("each `deno run` start of Pitroom passes the V8 flags before the program", async () => {
  const starts: Record<string, string[]> = {
    "selfCommand (a host, a dashboard)": selfCommand(),
    "the tests' pitroomArgv": pitroomArgv(),
    "the crew world's": fakePitroomArgv(),
  };
  for (const [what, argv] of Object.entries(starts)) {
    const at = argv.indexOf(V8_FLAGS_ARG);
    assert.ok(at > argv.indexOf("run") && at < argv.length - 1, `${what}: ${argv.join(" ")}`);
  }
  const config = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
  assert.ok(
    config.tasks.pitroom.includes(` ${V8_FLAGS_ARG} `),
    `deno.json: ${config.tasks.pitroom}`,
  );
  const dev = await Deno.readTextFile(join(REPO_ROOT, "dev"));
  assert.match(dev, new RegExp(`exec deno run -P=pitroom ${V8_FLAGS_ARG} `));
});
