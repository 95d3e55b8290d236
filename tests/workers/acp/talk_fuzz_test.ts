/**
 * The ACP talk against bad input (pure): the streams recorded from the real agents
 * (testdata/), each line torn, retyped or replaced by noise (tests/workers/_fixtures/fuzz.ts),
 * and floods of the agent's requests. Whatever comes, `hear` never throws, every event is one of
 * the union, everything it says is one JSON-RPC 2.0 message, and once over it stays over.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { isEvent } from "../../../src/events/mod.ts";
import { AcpTalk, MAX_REQUESTS } from "../../../src/workers/acp/talk.ts";
import { mutate, ODD_LINES, prng, recordedStreams } from "../_fixtures/fuzz.ts";
import { readAt } from "../../support/line_time.ts";

const DIR = join(import.meta.dirname!, "testdata");

function newTalk(mode: "read" | "write" = "write") {
  return new AcpTalk({ name: "agent", mode, web: false, cwd: "/repo", prompt: "task" });
}

function checkSaid(lines: readonly string[]): void {
  for (const line of lines) {
    assert.ok(!line.includes("\n"), "one message a line");
    const message = JSON.parse(line);
    assert.equal(message.jsonrpc, "2.0");
    assert.ok("method" in message || "result" in message || "error" in message, line);
  }
}

Deno.test("AcpTalk.hear() takes every recorded stream torn and retyped, line by line", async () => {
  const streams = await recordedStreams(DIR);
  assert.ok(streams.size >= 2, "the recorded streams of two agents");
  let lines = 0;
  for (const seed of [1, 2, 3, 4]) {
    const rand = prng(seed);
    for (const [name, stream] of streams) {
      const talk = newTalk(seed % 2 === 0 ? "read" : "write");
      checkSaid(talk.open());
      let over = false;
      for (const [i, original] of stream.entries()) {
        const line = rand() < 0.3 ? mutate(original, rand) : original;
        const heard = talk.hear(line, readAt(1000 + i));
        lines++;
        for (const ev of heard.events) {
          assert.ok(isEvent(ev), `${name}#${i}: ${JSON.stringify(ev)}`);
        }
        checkSaid(heard.say);
        if (over) assert.deepEqual(heard.say, [], `${name}#${i}: nothing said once over`);
        over ||= heard.over;
      }
      checkSaid(talk.cancel());
    }
  }
  assert.ok(lines > 100);
});

Deno.test("AcpTalk.hear() takes odd lines in every phase without throwing", () => {
  const init = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    result: { protocolVersion: 1, agentCapabilities: {} },
  });
  const session = JSON.stringify({ jsonrpc: "2.0", id: 2, result: { sessionId: "s" } });
  for (const phase of [[], [init], [init, session]]) {
    const talk = newTalk();
    talk.open();
    for (const line of phase) talk.hear(line, readAt(1));
    for (const odd of ODD_LINES) {
      const heard = talk.hear(odd, readAt(2));
      for (const ev of heard.events) assert.ok(isEvent(ev));
      checkSaid(heard.say);
    }
  }
});

Deno.test("AcpTalk ends a flood of permission requests after MAX_REQUESTS, answering each before", () => {
  const talk = newTalk();
  talk.open();
  talk.hear(
    JSON.stringify({ jsonrpc: "2.0", id: 1, result: { protocolVersion: 1 } }),
    readAt(1),
  );
  talk.hear(JSON.stringify({ jsonrpc: "2.0", id: 2, result: { sessionId: "s" } }), readAt(1));
  let answered = 0;
  for (let i = 0; i < MAX_REQUESTS * 2; i++) {
    const heard = talk.hear(
      JSON.stringify({
        jsonrpc: "2.0",
        id: `p${i}`,
        method: "session/request_permission",
        params: { sessionId: "s", toolCall: { toolCallId: `t${i}`, kind: "edit" }, options: [] },
      }),
      readAt(2),
    );
    answered += heard.say.length;
    if (heard.over) {
      assert.equal(i, MAX_REQUESTS);
      const error = heard.events.find((e) => e.type === "worker.error");
      assert.match(error?.type === "worker.error" ? error.message : "", /more than 500 requests/);
      break;
    }
  }
  assert.equal(answered, MAX_REQUESTS);
});
