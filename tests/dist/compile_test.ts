/**
 * The compile pipeline, checked here with a stand-in runtime (`DENORT_BIN` = this deno: the
 * binary does not run, but the embedded files, the payload size and the embedded permissions are
 * what a release gets), and the checks themselves against binaries that break them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../support/pitroom.ts";
import { tempDir } from "../support/temp.ts";
import {
  checkCompile,
  embeddedPermissions,
  embeddedV8Flags,
  parseCompileOutput,
  PAYLOAD_BUDGET_BYTES,
} from "../../scripts/release/targets.ts";
import { parseSums, sha256File } from "../../scripts/release/sums.ts";
import { V8_FLAGS } from "../../src/sys/real.ts";

const config = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
const SET = config.permissions.pitroom;

Deno.test("compile: the bundle's folder only, within the size budget, deno.json's permissions embedded, SHA256SUMS", async () => {
  await using dir = await tempDir();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-P=pitroom", "--quiet", "scripts/compile.ts", "--out", dir.path, "--json"],
    cwd: REPO_ROOT,
    env: { DENORT_BIN: Deno.execPath(), NO_COLOR: "1" },
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, text + new TextDecoder().decode(out.stderr));
  const report = JSON.parse(text);
  assert.equal(report.version, config.version);
  assert.match(report.stamp.commit, /^[0-9a-f]{7,}(-dirty)?$/);
  const [r] = report.results;
  assert.deepEqual(r.problems, []);
  assert.equal(r.embedded.length, 1);
  assert.match(r.embedded[0], /^dist\/\.compile-[^/]+\/\*$/);
  assert.ok(
    r.payloadBytes > 100_000 && r.payloadBytes <= PAYLOAD_BUDGET_BYTES,
    `${r.payloadBytes}`,
  );
  assert.equal(r.permissionsMatch, true);
  assert.equal(r.v8FlagsMatch, true);
  const file = join(dir.path, `pitroom-${r.target}`);
  const binary = await Deno.readFile(file);
  for (const flag of V8_FLAGS) assert.ok(embeddedV8Flags(binary)?.includes(flag), flag);
  const perms = embeddedPermissions(binary);
  assert.deepEqual(perms?.allow_net, ["127.0.0.1"]);
  assert.equal(perms?.allow_ffi, null);
  assert.equal(perms?.prompt, false);
  const sums = parseSums(await Deno.readTextFile(join(dir.path, "SHA256SUMS")));
  assert.equal(sums.get(`pitroom-${r.target}`), await sha256File(file));
});

const OUTPUT = `Compile dist/.compile-a1/pitroom.js to ../../tmp/p

Embedded Files

p
├── dist/.compile-a1/* (540.48KB)
└── work/main (0B)

Files: 542.85KB
Metadata: 2.26KB
`;

function fakeBinary(permissions: Record<string, unknown>, v8Flags = ["--no-lazy"]): Uint8Array {
  return new TextEncoder().encode(
    `\x7fELF...\x00"permissions":${JSON.stringify(permissions)},"v8_flags":${
      JSON.stringify(["--stack-size=1024", ...v8Flags])
    }\x00...`,
  );
}

const FLAGS = ["--no-lazy"];

const BUNDLE = "dist/.compile-a1";

const GOOD = {
  allow_env: [],
  allow_net: ["127.0.0.1"],
  allow_ffi: null,
  allow_read: [],
  allow_run: [],
  allow_sys: [],
  allow_write: [],
  prompt: false,
};

Deno.test("the compile checks pass a good binary and name each thing wrong with a bad one", () => {
  const parsed = parseCompileOutput(OUTPUT);
  assert.deepEqual(parsed.embedded, ["dist/.compile-a1/*"]);
  assert.equal(parsed.filesBytes, Math.round(542.85 * 1024));
  assert.deepEqual(checkCompile(parsed, fakeBinary(GOOD), SET, BUNDLE, FLAGS).problems, []);
  assert.match(
    checkCompile(parsed, fakeBinary(GOOD), SET, "dist/.compile-b2", FLAGS).problems.join("\n"),
    /the bundle's folder dist\/\.compile-b2, found: dist\/\.compile-a1\/\*/,
  );

  const wide = checkCompile(
    parsed,
    fakeBinary({ ...GOOD, allow_net: [], prompt: true }),
    SET,
    BUNDLE,
    FLAGS,
  );
  assert.equal(wide.permissionsMatch, false);
  assert.equal(wide.problems.length, 2, wide.problems.join("\n"));

  const none = checkCompile(parsed, new TextEncoder().encode("no set here"), SET, BUNDLE, FLAGS);
  assert.match(none.problems.join("\n"), /no permission set is embedded/);
  assert.match(none.problems.join("\n"), /lacks the V8 flag\(s\) --no-lazy \(embedded: none\)/);

  const lazy = checkCompile(parsed, fakeBinary(GOOD, []), SET, BUNDLE, FLAGS);
  assert.equal(lazy.v8FlagsMatch, false);
  assert.match(
    lazy.problems.join("\n"),
    /lacks the V8 flag\(s\) --no-lazy \(embedded: --stack-size=1024\)/,
  );

  const tree = parseCompileOutput(
    OUTPUT.replace(
      "├── dist/.compile-a1/* (540.48KB)",
      "├─┬ .deno_compile_node_modules (28.15MB - 26.99MB unique)\n│ └── x\n└── main.ts (1KB)",
    ).replace("Files: 542.85KB", "Files: 29.2MB"),
  );
  const big = checkCompile(tree, fakeBinary(GOOD), SET, BUNDLE, FLAGS);
  assert.deepEqual(tree.embedded, [".deno_compile_node_modules", "main.ts"]);
  assert.match(big.problems.join("\n"), /the bundle's folder/);
  assert.match(big.problems.join("\n"), /over the budget/);
});
