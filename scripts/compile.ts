/**
 * `deno task compile [--target T|all] [--out DIR] [--json]`: builds the `pitroom` binary for one
 * platform or the four release targets (windows-x64 on request, see release/targets.ts), each
 * embedding the bundled payload (one folder, `pitroom.js` and its chunks, no node_modules tree;
 * not minified; see scripts/release/bundle.ts) with deno.json's `pitroom` permission set
 * embedded and a build stamp (version, commit, date) set by the entry module before main.ts
 * loads. Then it checks what it built: the embedded files are that folder and nothing else, the
 * payload is within the size budget, the embedded permissions are the set of deno.json; and
 * writes `SHA256SUMS`.
 *
 * `DENORT_BIN` (the base runtime) is honoured as `deno compile` does; with a stand-in runtime
 * the binary does not run, but every check above still holds (see ../shared/docs/toolchain.md).
 */
import { parseArgs } from "node:util";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import {
  checkCompile,
  parseCompileOutput,
  PAYLOAD_BUDGET_BYTES,
  RELEASE_TARGETS,
  type TargetName,
  TARGETS,
} from "./release/targets.ts";
import { sha256File } from "./release/sums.ts";
import { currentStamp } from "./release/entry.ts";
import { BUNDLE_ENTRY, bundleInto } from "./release/bundle.ts";
import { V8_FLAGS, V8_FLAGS_ARG } from "../src/sys/real.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

const { values } = parseArgs({
  args: Deno.args,
  options: {
    target: { type: "string", default: "host" },
    out: { type: "string", default: join(ROOT, "dist") },
    json: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (values.help) {
  console.log(
    `usage: deno task compile [--target host|all|${
      Object.keys(TARGETS).join("|")
    }] [--out DIR] [--json]`,
  );
  Deno.exit(0);
}

function hostTarget(): TargetName {
  const os = Deno.build.os === "darwin"
    ? "darwin"
    : Deno.build.os === "windows"
    ? "windows"
    : "linux";
  const arch = Deno.build.arch === "aarch64" ? "arm64" : "x64";
  const name = `${os}-${arch}` as TargetName;
  if (!(name in TARGETS)) throw new Error(`no release target for this host (${name})`);
  return name;
}

const wanted: TargetName[] = values.target === "all"
  ? RELEASE_TARGETS
  : [values.target === "host" ? hostTarget() : values.target as TargetName];
for (const t of wanted) {
  if (!(t in TARGETS)) {
    console.error(`compile: unknown target "${t}" (${Object.keys(TARGETS).join(", ")}, all, host)`);
    Deno.exit(2);
  }
}

const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
const stamp = await currentStamp(ROOT);

const out = values.out;
await Deno.mkdir(out, { recursive: true });
// The payload is bundled once, under the checkout (the embedded tree then names it from there).
await Deno.mkdir(join(ROOT, "dist"), { recursive: true });
const bundle = await Deno.makeTempDir({ dir: join(ROOT, "dist"), prefix: ".compile-" });

const results = [];
let failed = false;
try {
  let bundled = true;
  await bundleInto(ROOT, bundle, stamp).catch((e) => {
    console.error(`compile: ${e instanceof Error ? e.message : e}`);
    failed = true;
    bundled = false;
  });
  for (const name of bundled ? wanted : []) {
    const target = TARGETS[name];
    if (Deno.env.get("DENORT_BIN") && !name.startsWith(`${hostTarget().split("-")[0]}-`)) {
      // A stand-in runtime is a binary of this host's format: another OS needs its own runtime.
      console.error(`compile: ${name}: skipped (DENORT_BIN is a ${Deno.build.os} runtime)`);
      continue;
    }
    const file = join(out, `pitroom-${name}${target.exe ? ".exe" : ""}`);
    const compiled = await new Deno.Command(Deno.execPath(), {
      args: [
        "compile",
        "-P",
        "--no-check",
        "--no-prompt",
        V8_FLAGS_ARG,
        `--config=${join(ROOT, "deno.json")}`,
        "--target",
        target.triple,
        "--output",
        file,
        // Every chunk, by name: the graph does not follow the chunks' dynamic imports (deno.json's
        // `lazy-dynamic-imports`, so that a command reads only the chunks it runs).
        "--include",
        bundle,
        join(bundle, BUNDLE_ENTRY),
      ],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
    }).output();
    const text = new TextDecoder().decode(compiled.stdout) +
      new TextDecoder().decode(compiled.stderr);
    if (!compiled.success) {
      console.error(`compile: ${name}: deno compile failed:\n${text}`);
      failed = true;
      continue;
    }
    const binary = await Deno.readFile(file);
    const check = checkCompile(
      parseCompileOutput(text),
      binary,
      config.permissions.pitroom,
      relative(ROOT, bundle),
      V8_FLAGS,
    );
    const sha256 = await sha256File(file);
    results.push({ target: name, file: relative(ROOT, file), sha256, ...check });
    if (check.problems.length > 0) failed = true;
  }
} finally {
  await Deno.remove(bundle, { recursive: true }).catch(() => undefined);
}

const sums = results.map((r) => `${r.sha256}  ${basename(r.file)}\n`).join("");
if (results.length > 0) await Deno.writeTextFile(join(out, "SHA256SUMS"), sums);

if (values.json) {
  console.log(JSON.stringify({ version: config.version, stamp, results }, null, 2));
} else {
  for (const r of results) {
    const kb = (n: number) => `${Math.round(n / 1024)} KB`;
    console.log(
      `${r.target}: ${r.file} payload ${kb(r.payloadBytes)} (budget ${
        kb(PAYLOAD_BUDGET_BYTES)
      }), ${r.embedded.length} embedded file(s), permissions ${
        r.permissionsMatch ? "ok" : "WRONG"
      }, V8 flags ${r.v8FlagsMatch ? "ok" : "WRONG"}`,
    );
    for (const p of r.problems) console.log(`  problem: ${p}`);
  }
}
Deno.exit(failed ? 1 : 0);
