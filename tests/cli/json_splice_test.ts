import assert from "node:assert/strict";
import { setMember, unsetMember } from "../../src/cli/json_splice.ts";

const USER = `{
    "theme": "dark",
    "mcpServers": {
        "big": { "command": "x", "args": [1e400, 12345678901234567890, -0.0] },
        "dup": {"a": 1}, "dup": {"a": 2}
    },
    "tail": [1, {"mcpServers": "not this one"}]
}
`;

const OURS = { command: "/bin/pitroom", args: ["mcp"] };

Deno.test("setMember() adds one member and leaves every other byte as it was", () => {
  const next = setMember(USER, "mcpServers", "pitroom", OURS);
  assert.deepEqual(JSON.parse(next).mcpServers.pitroom, OURS);
  const added = next.slice(USER.indexOf(`{"a": 2}`) + `{"a": 2}`.length, next.indexOf("\n    }"));
  assert.equal(
    added,
    `,\n        "pitroom": {\n            "command": "/bin/pitroom",\n            "args": [\n                "mcp"\n            ]\n        }`,
  );
  assert.equal(next.replace(added, ""), USER);
  assert.equal(unsetMember(next, "mcpServers", "pitroom"), USER);
});

Deno.test("setMember() replaces the member's value in place, and makes the container when missing", () => {
  const once = setMember(USER, "mcpServers", "pitroom", OURS);
  const twice = setMember(once, "mcpServers", "pitroom", { command: "other", args: [] });
  assert.deepEqual(JSON.parse(twice).mcpServers.pitroom, { command: "other", args: [] });
  assert.equal(setMember(twice, "mcpServers", "pitroom", OURS), once);

  const plain = `{"a": 1}`;
  const made = setMember(plain, "mcpServers", "pitroom", OURS);
  assert.deepEqual(JSON.parse(made), { a: 1, mcpServers: { pitroom: OURS } });
  assert.equal(unsetMember(made, "mcpServers", "pitroom", { dropEmpty: true }), plain);

  const empty = setMember("", "mcpServers", "pitroom", OURS);
  assert.deepEqual(JSON.parse(empty), { mcpServers: { pitroom: OURS } });
  const indented = `{\n\t"x": {}\n}\n`;
  const tabbed = setMember(indented, "mcpServers", "pitroom", OURS);
  assert.match(tabbed, /\n\t"mcpServers": \{\n\t\t"pitroom": \{\n\t\t\t"command"/);
  assert.equal(unsetMember(tabbed, "mcpServers", "pitroom", { dropEmpty: true }), indented);
});

Deno.test("unsetMember() removes only that member, first, middle, last or only", () => {
  const three = `{"mcpServers": {"a": 1, "pitroom": 2, "b": 3}}`;
  assert.equal(unsetMember(three, "mcpServers", "pitroom"), `{"mcpServers": {"a": 1, "b": 3}}`);
  assert.equal(
    unsetMember(`{"mcpServers": {"pitroom": 2, "b": 3}}`, "mcpServers", "pitroom"),
    `{"mcpServers": {"b": 3}}`,
  );
  assert.equal(
    unsetMember(`{"mcpServers": { "pitroom": "a,}{\\"" }}`, "mcpServers", "pitroom"),
    `{"mcpServers": {}}`,
  );
  assert.equal(unsetMember(USER, "mcpServers", "pitroom"), USER);
  assert.equal(unsetMember(`{"x": 1}`, "mcpServers", "pitroom", { dropEmpty: true }), `{"x": 1}`);
});
