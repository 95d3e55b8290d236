/**
 * Under `--json` an error is one JSON object on stderr, `{"error": {code, message, hint}}`, with
 * the exit code it has in plain text; the message and the hint say the CLI's flags, not the
 * engine's field names. Without `--json` (or with it only after `--`) the error stays plain text.
 */
import assert from "node:assert/strict";
import { main } from "../../src/cli/main.ts";
import { RECURSION_MARKER } from "../../src/sys/marker.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";

interface JsonError {
  error: { code: string; message: string; hint: string | null };
}

/** stderr as exactly one JSON line. */
function oneObject(text: string): JsonError {
  const lines = text.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 1, text);
  return JSON.parse(lines[0]!);
}

Deno.test("a usage error under --json is one JSON object with the usage code and exit 2", async () => {
  await using dir = await tempDir();
  const sys = testSys({ stateDir: dir.path });
  assert.equal(await main(["ls", "--json", "--bogus"], sys), 2);
  assert.deepEqual(oneObject(sys.stderrText()), {
    error: {
      code: "usage",
      message: 'Unknown flag "--bogus" for `pitroom ls`',
      hint: "see `pitroom ls --help`",
    },
  });
  assert.equal(sys.stdoutText(), "");
});

Deno.test("a refused error under --json carries its own code, exit 3, and a null hint when none", async () => {
  await using dir = await tempDir();
  const sys = testSys({ stateDir: dir.path, env: { [RECURSION_MARKER]: "r1" } });
  assert.equal(await main(["ls", "--json"], sys), 3);
  const { error } = oneObject(sys.stderrText());
  assert.equal(error.code, "recursion");
  assert.match(error.message, /may not start Pitroom/);
  assert.equal(error.hint, null);
});

Deno.test("--json errors say the CLI's flags, not the engine's field names", async () => {
  await using dir = await tempDir();
  await new Deno.Command("git", { args: ["init", "-q", dir.path] }).output();
  const sys = testSys({ stateDir: `${dir.path}/.state`, cwd: dir.path });
  assert.equal(await main(["run", "--json", "-w", "--link", "nowhere", "hi"], sys), 2);
  const { error } = oneObject(sys.stderrText());
  assert.equal(error.code, "usage");
  assert.match(error.message, /^--link "nowhere" is not a folder/);
});

Deno.test("without --json, or with it only after --, an error stays plain text", async () => {
  await using dir = await tempDir();
  for (const argv of [["ls", "--bogus"], ["ls", "--bogus", "--", "--json"]]) {
    const sys = testSys({ stateDir: dir.path });
    assert.equal(await main(argv, sys), 2);
    assert.equal(
      sys.stderrText(),
      'pitroom: Unknown flag "--bogus" for `pitroom ls`\nhint: see `pitroom ls --help`\n',
    );
  }
});
