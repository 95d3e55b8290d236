/**
 * `deno task demo`: Pitroom end to end, offline. Starts the scripted model server, makes a small
 * sample repository with some uncommitted work of "yours", and runs a real OpenCode worker
 * through pitroom: a read-only question, then an in-place edit that Pitroom tracks
 * exactly (your own uncommitted change is left out of the report) and reverts, then the same
 * edit in a private copy whose checked patch is applied to your tree.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startModelServer } from "../tests/support/model_server/fixture.ts";
import { pitroom } from "../tests/support/pitroom.ts";
import { git } from "../tests/support/temp.ts";

const scenarios = fileURLToPath(new URL("./demo/scenarios/", import.meta.url));

const work = await Deno.makeTempDir({ prefix: "pitroom-demo-" });
try {
  await using server = await startModelServer({ scenarios });
  const repo = join(work, "sample");
  await Deno.mkdir(join(repo, "src"), { recursive: true });
  await Deno.writeTextFile(
    join(repo, "src/greet.ts"),
    'export function greet(name: string): string {\n  return "Hello, " + name;\n}\n',
  );
  await Deno.writeTextFile(
    join(repo, "src/main.ts"),
    'import { greet } from "./greet.ts";\n\nconsole.log(greet(Deno.args[0] ?? "world"));\n',
  );
  await Deno.writeTextFile(join(repo, "README.md"), "# sample\n");
  await git(repo, "init", "-q", "-b", "main");
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "sample");
  await Deno.writeTextFile(join(repo, "README.md"), "# sample\n\nYour own uncommitted note.\n");

  const env = {
    ...server.env,
    PITROOM_STATE_DIR: join(work, "state"),
    PITROOM_CONFIG: join(work, "config.json"),
  };
  const step = async (title: string, args: string[]) => {
    console.log(
      `\n$ pitroom ${
        args.map((a) => (a.includes(" ") ? JSON.stringify(a) : a)).join(" ")
      }    # ${title}`,
    );
    const r = await pitroom(args, { env, cwd: repo });
    Deno.stdout.writeSync(new TextEncoder().encode(r.stdout));
    if (r.stderr.trim()) console.error(r.stderr.trimEnd());
    return r;
  };
  const read = await step("a read-only question", [
    "run",
    "-W",
    "opencode",
    "-m",
    "fake/demo-read",
    "Where is the greeting built?",
  ]);
  const write = await step("an in-place edit, tracked exactly", [
    "run",
    "-w",
    "-W",
    "opencode",
    "-m",
    "fake/demo-write",
    "Use a template string in greet()",
  ]);
  const id = /^run (\S+)/m.exec(write.stdout)?.[1] ?? "last";
  await step("the exact diff", ["show", id, "--patch"]);
  await step("undo exactly the worker's edit", ["revert", id]);
  const isolated = await step("the same edit in a private copy of your tree", [
    "run",
    "-i",
    "-W",
    "opencode",
    "-m",
    "fake/demo-write",
    "Use a template string in greet()",
  ]);
  await step("bring the checked patch into your tree", ["apply", "last"]);
  await step("every run so far", ["ls"]);
  const ok = read.code === 0 && write.code === 0 && isolated.code === 0;
  console.log(
    ok ? "\ndemo finished: every run succeeded" : "\ndemo finished with a problem (see above)",
  );
  Deno.exitCode = ok ? 0 : 1;
} finally {
  await Deno.remove(work, { recursive: true });
}
