/**
 * The CLI versions each backend declares it was tested with (`Backend.tested`) cannot drift from
 * what the tests install: every pin of scripts/install_workers.sh (its package.json and the
 * versions it checks) is its backend's `pinned` and falls inside its range, so bumping a pin
 * without the range fails here. And the comparison `doctor` warns with reads versions as semver.
 */
import assert from "node:assert/strict";
import { BACKENDS } from "../../src/workers/registry.ts";
import { compareVersions, testedRangeText, versionFit } from "../../src/workers/tested.ts";
import { WORKER_NAMES, type WorkerName } from "../../src/workers/types.ts";

/** The npm package of each worker CLI, as scripts/install_workers.sh installs it. */
const PACKAGES: Record<WorkerName, string> = {
  opencode: "opencode-ai",
  codex: "@openai/codex",
  claude: "@anthropic-ai/claude-code",
  gemini: "@google/gemini-cli",
  qwen: "@qwen-code/qwen-code",
  kilo: "@kilocode/cli",
  copilot: "@github/copilot",
  crush: "@charmland/crush",
};

/** Workers the script cannot install here, and why (the script and the README say so too). */
const NOT_INSTALLED: Partial<Record<WorkerName, string>> = {
  crush: "its package downloads the binary from github.com at install time",
};

/** The workers the script pins. */
const PINNED = WORKER_NAMES.filter((w) => NOT_INSTALLED[w] === undefined);

const script = await Deno.readTextFile(
  new URL("../../scripts/install_workers.sh", import.meta.url),
);

/** The script's pins: the package.json it writes, and the `bin:version` pairs it checks. */
function scriptPins(text: string): { packages: Map<string, string>; checked: Map<string, string> } {
  const json = /cat > "\$dir\/package\.json" <<'JSON'\n([\s\S]*?)\nJSON\n/.exec(text)?.[1];
  assert.ok(json, "scripts/install_workers.sh writes no package.json");
  const deps = (JSON.parse(json) as { dependencies: Record<string, string> }).dependencies;
  const pairs = /^for pair in (.+); do$/m.exec(text)?.[1];
  assert.ok(pairs, "scripts/install_workers.sh checks no bin:version pairs");
  const checked = new Map(pairs.split(" ").map((p) => p.split(":") as [string, string]));
  return { packages: new Map(Object.entries(deps)), checked };
}

Deno.test("every pin of scripts/install_workers.sh is its backend's pinned version, inside its tested range", () => {
  const { packages, checked } = scriptPins(script);
  assert.deepEqual([...packages.keys()].sort(), PINNED.map((w) => PACKAGES[w]).sort());
  assert.deepEqual([...checked.keys()].sort(), [...PINNED].sort());
  for (const worker of PINNED) {
    const tested = BACKENDS[worker].tested;
    for (const pin of [packages.get(PACKAGES[worker])!, checked.get(worker)!]) {
      assert.equal(
        pin,
        tested.pinned,
        `${worker}: the script pins ${pin}, the backend ${tested.pinned}`,
      );
      assert.equal(
        versionFit(tested, pin),
        "inside",
        `${worker} ${pin} is outside the range its backend declares (${testedRangeText(tested)})`,
      );
    }
    assert.ok(compareVersions(tested.min, tested.max)! <= 0, `${worker}: min is past max`);
    assert.ok(tested.relies.length > 0);
  }
});

Deno.test("the drift check fails on a pin bumped without its range", () => {
  const bumped = script.replace('"@openai/codex": "0.169.0"', '"@openai/codex": "0.171.0"')
    .replace("codex:0.169.0", "codex:0.171.0");
  assert.notEqual(bumped, script);
  const { packages, checked } = scriptPins(bumped);
  assert.equal(versionFit(BACKENDS.codex.tested, packages.get("@openai/codex")!), "newer");
  assert.equal(versionFit(BACKENDS.codex.tested, checked.get("codex")!), "newer");
});

Deno.test("versionFit() places releases, pre-releases and unreadable versions against the range", () => {
  const tested = { pinned: "0.61.0", min: "0.60.2", max: "0.61.0", relies: "its events" };
  assert.equal(versionFit(tested, "0.61.0"), "inside");
  assert.equal(versionFit(tested, "0.60.2"), "inside");
  assert.equal(versionFit(tested, "v0.60.10"), "inside");
  assert.equal(versionFit(tested, "0.61.0+build.7"), "inside");
  assert.equal(versionFit(tested, "0.61.1"), "newer");
  assert.equal(versionFit(tested, "1.0.0"), "newer");
  assert.equal(versionFit(tested, "0.60.1"), "older");
  // A nightly of a release comes before it (semver): not the tested version when that is the
  // lower bound, inside when it falls between two tested ones.
  const nightly = "0.61.0-nightly.20260909.ged2ac40df";
  assert.equal(versionFit({ ...tested, min: "0.61.0" }, nightly), "older");
  assert.equal(versionFit(tested, nightly), "inside");
  assert.equal(versionFit(tested, "0.62.0-preview.1"), "newer");
  for (
    const bad of ["", "garbage", "1.2", "1.2.3.4", "01.2.3", "1.2.3,", "99999999999999999.0.0"]
  ) {
    assert.equal(versionFit(tested, bad), "unparseable", bad);
  }
  assert.equal(testedRangeText(tested), "0.60.2 to 0.61.0");
  assert.equal(testedRangeText({ ...tested, min: "0.61.0" }), "0.61.0");
});

Deno.test("compareVersions() orders pre-release identifiers as semver does", () => {
  const order = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
    "1.0.1",
    "1.10.0",
    "2.0.0",
  ];
  for (let i = 0; i < order.length - 1; i++) {
    assert.equal(compareVersions(order[i]!, order[i + 1]!), -1, `${order[i]} < ${order[i + 1]}`);
    assert.equal(compareVersions(order[i + 1]!, order[i]!), 1);
  }
  assert.equal(compareVersions("1.0.0", "1.0.0+x"), 0);
  assert.equal(compareVersions("1.0.0", "nope"), null);
});
