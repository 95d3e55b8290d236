import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
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
    ok(model.efforts.length > 0, model.id);
    ok(model.defaultEffort === undefined || model.efforts.includes(model.defaultEffort), model.id);
    assertEquals(model.source, "builtin");
  }
});

Deno.test("models() hands out copies, so callers cannot change the maintained list", async () => {
  const first = await geminiBackend.models(realRunner, {});
  first[0]?.efforts.push("turbo");
  const second = await geminiBackend.models(realRunner, {});
  assertEquals(second[0]?.efforts.includes("turbo"), false);
});
