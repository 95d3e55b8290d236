import { assertEquals, assertThrows } from "./_assert.ts";
import {
  chooseTurn,
  DONE_TEXT,
  loadScenario,
  parseScenario,
  pastEndText,
  ScenarioError,
  scenarioName,
} from "../support/model_server/scenario.ts";

Deno.test("parseScenario() reads every action and modifier of the contract", () => {
  const scenario = parseScenario("all", {
    turns: [
      { say: "Looking.", grep: "handleRequest" },
      { grep: { pattern: "a+b", path: "src" } },
      { read: "src/server.ts" },
      { list: "src" },
      { write: { path: "new.txt", content: "x" } },
      { edit: { path: "src/server.ts", old: "a+b", new: "a + b" } },
      { shell: "ls" },
      { web: "http://127.0.0.1:1/" },
      { calls: [{ read: "a" }, { grep: "b" }] },
      { error: { status: 429, kind: "rate_limit", retry_after_s: 2, times: 1 }, delay_ms: 5 },
      { hang: true },
      { answer: "Done.", usage: { input: 10, output: 2, cached: 4 } },
    ],
    followup: [{ answer: "Again." }],
  });
  assertEquals(scenario.turns.map((turn) => turn.calls), [
    [{ grep: "handleRequest" }],
    [{ grep: { pattern: "a+b", path: "src" } }],
    [{ read: "src/server.ts" }],
    [{ list: "src" }],
    [{ write: { path: "new.txt", content: "x" } }],
    [{ edit: { path: "src/server.ts", old: "a+b", new: "a + b" } }],
    [{ shell: "ls" }],
    [{ web: "http://127.0.0.1:1/" }],
    [{ read: "a" }, { grep: "b" }],
    [],
    [],
    [],
  ]);
  assertEquals(scenario.turns[0]?.say, "Looking.");
  assertEquals(scenario.turns[9]?.error, {
    status: 429,
    kind: "rate_limit",
    retryAfterS: 2,
    times: 1,
  });
  assertEquals(scenario.turns[9]?.delayMs, 5);
  assertEquals(scenario.turns[10]?.hang, true);
  assertEquals(scenario.turns[11]?.usage, { input: 10, output: 2, cached: 4, reasoning: 0 });
  assertEquals(scenario.followup?.[0]?.answer, "Again.");
});

Deno.test("parseScenario() gives an error its kind's usual status when none is set", () => {
  const scenario = parseScenario("e", { turns: [{ error: { kind: "auth" } }] });
  assertEquals(scenario.turns[0]?.error?.status, 401);
});

Deno.test("parseScenario() names the place of a fault in a bad file", () => {
  const cases: [unknown, string][] = [
    [{}, `scenario "bad": missing "turns"`],
    [{ turns: [] }, `scenario "bad" turns: expected a non-empty list of turns`],
    [{ turns: [{ read: 3 }] }, `scenario "bad" turns[0].read: expected a string, got 3`],
    [{ turns: [{ raed: "a" }] }, `scenario "bad" turns[0]: unknown key "raed"`],
    [{ turns: [{ read: "a", shell: "ls" }] }, `more than one action (read, shell): use "calls"`],
    [{ turns: [{ edit: { path: "a", old: "b" } }] }, `turns[0].edit: missing "new"`],
    [{ turns: [{ read: "a", answer: "b" }] }, `"answer" ends the model turn`],
    [{ turns: [{ error: { kind: "nope" } }] }, `turns[0].error.kind: unknown kind "nope"`],
    [{ turns: [{ delay_ms: -1 }] }, `turns[0].delay_ms: expected a whole number >= 0`],
    [{ turns: [{ answer: "a" }], extra: 1 }, `unknown key "extra"`],
  ];
  for (const [json, message] of cases) {
    assertThrows(() => parseScenario("bad", json), ScenarioError, message);
  }
});

Deno.test("loadScenario() is null without a file and throws on a file that is not JSON", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/broken.json`, "{ turns: ");
    await Deno.writeTextFile(`${dir}/ok.json`, JSON.stringify({ turns: [{ answer: "A" }] }));
    assertEquals(await loadScenario(dir, "absent"), null);
    assertEquals(await loadScenario(dir, "../ok"), null);
    assertEquals((await loadScenario(dir, "ok"))?.turns[0]?.answer, "A");
    await assertRejectsWith(() => loadScenario(dir, "broken"), `scenario "broken"`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

async function assertRejectsWith(fn: () => Promise<unknown>, text: string): Promise<void> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof ScenarioError && error.message.includes(text)) return;
    throw error;
  }
  throw new Error(`expected a ScenarioError including ${JSON.stringify(text)}`);
}

Deno.test("scenarioName() takes the last part of the model id unless a marker names one", () => {
  assertEquals(scenarioName({ model: "fake/read-answer", latestUser: "hi" }), "read-answer");
  assertEquals(scenarioName({ model: "read-answer", latestUser: "hi" }), "read-answer");
  assertEquals(
    scenarioName({ model: "fake/read-answer", latestUser: `"do it [[scenario:edit-one]]"` }),
    "edit-one",
  );
});

Deno.test("chooseTurn() counts tool rounds and plays followup on a second user turn", () => {
  const scenario = parseScenario("s", {
    turns: [{ read: "a" }, { answer: "first" }],
    followup: [{ answer: "second" }],
  });
  assertEquals(chooseTurn(scenario, { userTurns: 1, toolRounds: 0 }).turn?.calls, [{ read: "a" }]);
  assertEquals(chooseTurn(scenario, { userTurns: 1, toolRounds: 1 }).turn?.answer, "first");
  const followup = chooseTurn(scenario, { userTurns: 2, toolRounds: 0 });
  assertEquals([followup.list, followup.index, followup.turn?.answer], ["followup", 0, "second"]);
  const past = chooseTurn(scenario, { userTurns: 1, toolRounds: 5 });
  assertEquals([past.turn, pastEndText(scenario, past.list)], [null, "first"]);
});

Deno.test("chooseTurn() replays the turns on a follow-up when there is no followup list", () => {
  const scenario = parseScenario("s", { turns: [{ read: "a" }, { shell: "ls" }] });
  const choice = chooseTurn(scenario, { userTurns: 3, toolRounds: 0 });
  assertEquals([choice.list, choice.turn?.calls], ["turns", [{ read: "a" }]]);
  assertEquals(pastEndText(scenario, "turns"), DONE_TEXT);
});
