/**
 * The MCP server's `last` (and parts of ids) follow the directory it serves (`pitroom mcp -d
 * DIR`, else where it was started), through the real program on stdio.
 */
import assert from "node:assert/strict";
import { finishedRun, writeRuns } from "../../cli/_setup.ts";
import { tempRepo } from "../../support/temp.ts";
import { stdioClient, structured, textOf, world } from "./_world.ts";

Deno.test("pitroom_show of `last` is the newest run of the server's repository", async () => {
  await using w = await world({});
  await using other = await tempRepo({ "b.txt": "b\n" });
  const repo2 = await Deno.realPath(other.path);
  const id = "20261201-100000-aaaa";
  await writeRuns(w.stateDir, [{
    ...finishedRun(id, [], { input: 1, output: 1 }),
    cwd: repo2,
    repoRoot: repo2,
  }]);
  {
    await using here = await stdioClient(w);
    const shown = await here.client.callTool({ name: "pitroom_show", arguments: { run: "last" } });
    assert.equal(shown.isError, true);
    assert.match(textOf(shown), /No runs in this repository/);
    const part = await here.client.callTool({ name: "pitroom_show", arguments: { run: "aaaa" } });
    assert.match(textOf(part), new RegExp(`it names run "${id}" of "${repo2}"`));
    const full = await here.client.callTool({ name: "pitroom_show", arguments: { run: id } });
    assert.equal(structured(full).run.id, id);
  }
  await using there = await stdioClient(w, { args: ["-d", repo2] });
  const shown = await there.client.callTool({ name: "pitroom_show", arguments: { run: "last" } });
  assert.notEqual(shown.isError, true, textOf(shown));
  assert.equal(structured(shown).run.id, id);
  const listed = await there.client.listResources();
  assert.deepEqual(listed.resources.map((r) => r.name), [id]);
});
