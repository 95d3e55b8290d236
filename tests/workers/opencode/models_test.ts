/**
 * `opencode models` output, recorded from opencode 1.18.33 (`testdata/models_verbose.txt`, its
 * first line says how), into model infos.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseOpencodeModels } from "../../../src/workers/opencode/models.ts";
import { TESTDATA } from "./_recorded.ts";

Deno.test("parseOpencodeModels() lists every model with its variants as efforts", async () => {
  const text = await Deno.readTextFile(join(TESTDATA, "models_verbose.txt"));
  const models = parseOpencodeModels(text);
  assert.deepEqual(models.map((m) => m.id), [
    "opencode/big-pickle",
    "opencode/ling-3.0-flash-fin-free",
    "opencode/longcat-2.5-preview-free",
    "opencode/mimo-v2.6-flash-free",
    "opencode/muse-spark-1.3-contributor-free",
    "opencode/nemotron-3-ultra-free",
    "opencode/nemotron-3.5-lightning-free",
    "opencode/space-bunny-free",
    "fake/scripted",
    "fake/thinker",
  ]);
  const byId = new Map(models.map((m) => [m.id, m]));
  assert.deepEqual(byId.get("fake/thinker")?.efforts, ["low", "medium", "high"]);
  assert.deepEqual(byId.get("fake/scripted")?.efforts, []);
  assert.ok(models.every((m) => m.source === "cli"));
});

Deno.test("parseOpencodeModels() reads the plain list as ids without efforts", () => {
  assert.deepEqual(parseOpencodeModels("opencode/big-pickle\nfake/scripted\n"), [
    { id: "opencode/big-pickle", efforts: [], source: "cli" },
    { id: "fake/scripted", efforts: [], source: "cli" },
  ]);
});
