/**
 * The Homebrew formula: generated from a release's SHA256SUMS, valid Ruby, and read back through
 * a stand-in of Homebrew's DSL it names the right asset and checksum for each platform. The
 * versions of deno.json, the program, the formula and every plugin manifest agree.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../support/pitroom.ts";
import { tempDir } from "../support/temp.ts";
import { formula } from "../../scripts/release/formula.ts";
import { VERSION } from "../../src/cli/version.ts";

const SUMS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"]
  .map((a, i) => `${String(i + 1).repeat(64)}  pitroom-${a}`).join("\n");

/** Homebrew's DSL, just enough to record what the formula declares on each platform. */
const DSL = `
class Formula
  @@seen = []
  def self.platform; @@platform ||= []; end
  %w[desc homepage version license].each { |m| define_singleton_method(m) { |*a| } }
  def self.on_macos; platform.push("darwin"); yield; platform.pop; end
  def self.on_linux; platform.push("linux"); yield; platform.pop; end
  def self.on_arm; platform.push("arm64"); yield; platform.pop; end
  def self.on_intel; platform.push("x64"); yield; platform.pop; end
  def self.url(u); @@seen << [platform.join("-"), "url", u]; end
  def self.sha256(s); @@seen << [platform.join("-"), "sha256", s]; end
  def self.test; end
  def self.seen; @@seen; end
end
load ARGV[0]
Formula.seen.each { |p, k, v| puts [p, k, v].join(" ") }
`;

Deno.test("the formula is valid Ruby and gives each platform its asset and checksum", async (t) => {
  const has = await new Deno.Command("sh", { args: ["-c", "command -v ruby"] }).output();
  if (!has.success) {
    if (Deno.env.get("CI")) throw new Error("ruby is not installed (CI installs it)");
    await t.step({ name: "skipped: ruby is not installed", ignore: true, fn: () => {} });
    return;
  }
  await using dir = await tempDir();
  const file = join(dir.path, "pitroom.rb");
  await Deno.writeTextFile(file, formula("1.4.2", SUMS, "https://example.test/dl"));
  const syntax = await new Deno.Command("ruby", { args: ["-c", file] }).output();
  assert.equal(syntax.code, 0, new TextDecoder().decode(syntax.stderr));
  const dsl = join(dir.path, "dsl.rb");
  await Deno.writeTextFile(dsl, DSL);
  const read = await new Deno.Command("ruby", { args: [dsl, file] }).output();
  assert.equal(read.code, 0, new TextDecoder().decode(read.stderr));
  const lines = new TextDecoder().decode(read.stdout).trim().split("\n").sort();
  assert.deepEqual(lines, [
    `darwin-arm64 sha256 ${"4".repeat(64)}`,
    "darwin-arm64 url https://example.test/dl/v1.4.2/pitroom-darwin-arm64",
    `darwin-x64 sha256 ${"3".repeat(64)}`,
    "darwin-x64 url https://example.test/dl/v1.4.2/pitroom-darwin-x64",
    `linux-arm64 sha256 ${"2".repeat(64)}`,
    "linux-arm64 url https://example.test/dl/v1.4.2/pitroom-linux-arm64",
    `linux-x64 sha256 ${"1".repeat(64)}`,
    "linux-x64 url https://example.test/dl/v1.4.2/pitroom-linux-x64",
  ]);
  const committed = join(REPO_ROOT, "Formula", "pitroom.rb");
  const check = await new Deno.Command("ruby", { args: ["-c", committed] }).output();
  assert.equal(check.code, 0);
});

Deno.test("a formula needs every platform's checksum and a real version", () => {
  assert.throws(() => formula("1.0.0", SUMS.split("\n").slice(1).join("\n")), /pitroom-linux-x64/);
  assert.throws(() => formula("latest", SUMS), /not a version/);
});

/** Every plugin or extension manifest in the repository (not under .tools, .deno, dist). */
async function manifests(dir: string, found: string[] = []): Promise<string[]> {
  for await (const e of Deno.readDir(dir)) {
    if ([".git", ".tools", ".deno", "dist", "node_modules"].includes(e.name)) continue;
    const path = join(dir, e.name);
    if (e.isDirectory) await manifests(path, found);
    else if (/^(plugin|marketplace|gemini-extension)\.json$/.test(e.name)) found.push(path);
  }
  return found;
}

function versionsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) { for (const v of value) versionsIn(v, out); }
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "version" && typeof v === "string") out.push(v);
      else versionsIn(v, out);
    }
  }
  return out;
}

Deno.test("deno.json, the program, the formula and the plugin manifests carry one version", async () => {
  const config = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
  assert.equal(VERSION, config.version, "src/cli/version.ts");
  const rb = await Deno.readTextFile(join(REPO_ROOT, "Formula", "pitroom.rb"));
  assert.equal(/^\s*version "([^"]+)"$/m.exec(rb)?.[1], config.version, "Formula/pitroom.rb");
  for (const file of await manifests(REPO_ROOT)) {
    const json = JSON.parse(await Deno.readTextFile(file));
    for (const v of versionsIn(json)) assert.equal(v, config.version, file);
  }
});
