import { deepStrictEqual as assertEquals, ok, throws } from "node:assert/strict";
import { checkEffort } from "../../../src/engine/request/effort.ts";
import { geminiBackend } from "../../../src/workers/gemini/mod.ts";
import { realRunner } from "../../../src/sys/real.ts";

Deno.test("models() lists current Gemini models with thinking levels as efforts", async () => {
  const models = await geminiBackend.models(realRunner, {});
  const ids = models.map((m) => m.id);
  for (
    const id of [
      "gemini-2.5-pro",
      "gemini-2.5-flash",
      "gemini-2.5-flash-lite",
      "gemini-3-pro-preview",
    ]
  ) {
    ok(ids.includes(id), id);
  }
  assertEquals(new Set(ids).size, ids.length);
  for (const model of models) {
    ok(model.defaultEffort === undefined || model.efforts.includes(model.defaultEffort), model.id);
    assertEquals(model.source, "builtin");
  }
});

Deno.test("models() gives Gemini 3 thinking levels, Gemini 2.5 budgets and routing names none", async () => {
  const models = await geminiBackend.models(realRunner, {});
  const of = (id: string) => models.find((m) => m.id === id);
  assertEquals(of("gemini-3-pro-preview")?.efforts, ["low", "high"]);
  assertEquals(of("gemini-3-pro-preview")?.defaultEffort, "high");
  assertEquals(of("gemini-2.5-pro")?.efforts, ["low", "medium", "high"]);
  assertEquals(of("gemini-2.5-pro")?.defaultEffort, "medium");
  assertEquals(of("auto")?.efforts, []);
  assertEquals(of("auto")?.defaultEffort, undefined);
});

Deno.test("checkEffort() refuses an effort on a gemini model without levels", async () => {
  const models = await geminiBackend.models(realRunner, {});
  throws(() => checkEffort(models, "auto", "low", { worker: "gemini" }), /has no effort levels/);
  throws(() => checkEffort(models, "gemini-3-pro-preview", "medium"), /accepts low, high/);
  assertEquals(checkEffort(models, "gemini-2.5-flash", "Medium"), "medium");
});

Deno.test("models() hands out copies, so callers cannot change the maintained list", async () => {
  const first = await geminiBackend.models(realRunner, {});
  first[0]?.efforts.push("turbo");
  const second = await geminiBackend.models(realRunner, {});
  assertEquals(second[0]?.efforts.includes("turbo"), false);
});
