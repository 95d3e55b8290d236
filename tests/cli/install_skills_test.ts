/**
 * `pitroom install --skills` / `uninstall --skills` through the real program, in temp HOMEs, with
 * the skills source folder given by PITROOM_SKILLS_DIR (and the embedded list for the binary).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { installSkills, uninstallSkills } from "../../src/cli/install_skills.ts";
import { pitroom } from "../support/pitroom.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";

async function world(options: { agents?: boolean; claude?: boolean } = {}) {
  const dir = await tempDir("pitroom-skills-");
  const home = join(dir.path, "home");
  const source = join(dir.path, "program-skills");
  await Deno.mkdir(home, { recursive: true });
  if (options.agents ?? true) await Deno.mkdir(join(home, ".agents"));
  if (options.claude ?? true) await Deno.mkdir(join(home, ".claude"));
  for (const name of ["using-pitroom", "pitroom-research"]) {
    await Deno.mkdir(join(source, name, "templates"), { recursive: true });
    await Deno.writeTextFile(join(source, name, "SKILL.md"), `---\nname: ${name}\n---\nBody\n`);
    await Deno.writeTextFile(join(source, name, "templates", "t.md"), `template of ${name}\n`);
  }
  // Not a skill (no SKILL.md): never installed.
  await Deno.mkdir(join(source, "plugin"));
  await Deno.writeTextFile(join(source, "plugin", "plugin.json"), "{}\n");
  const env = {
    HOME: home,
    PATH: "/usr/bin:/bin",
    PITROOM_STATE_DIR: join(dir.path, "state"),
    PITROOM_SKILLS_DIR: source,
  };
  return {
    dir,
    home,
    source,
    env,
    run: (...args: string[]) => pitroom(args, { env, cwd: home }),
    record: async () =>
      JSON.parse(await Deno.readTextFile(join(dir.path, "state", "installed.json"))),
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

/** Every path under `dir` with what it is (link target, file text), for exact comparisons. */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(path: string, rel: string) {
    for await (const e of Deno.readDir(path)) {
      const p = join(path, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isSymlink) out[r] = `-> ${await Deno.readLink(p)}`;
      else if (e.isDirectory) await walk(p, r);
      else out[r] = await Deno.readTextFile(p);
    }
  }
  await walk(dir, "");
  return out;
}

Deno.test("install --skills links each skill into the roots that exist, once; uninstall takes exactly those out", async () => {
  await using w = await world({ agents: true, claude: true });
  // The user's own skill of the same name, and one of their own with another name.
  const mine = join(w.home, ".claude", "skills", "pitroom-research");
  await Deno.mkdir(mine, { recursive: true });
  await Deno.writeTextFile(join(mine, "SKILL.md"), "my own\n");
  await Deno.mkdir(join(w.home, ".claude", "skills", "other"));
  const before = await tree(w.home);

  const first = await w.run("install", "--skills");
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /\.claude\/skills\/pitroom-research {2}yours kept \(--force/);
  const links = {
    ".agents/skills/using-pitroom": `-> ${join(w.source, "using-pitroom")}`,
    ".agents/skills/pitroom-research": `-> ${join(w.source, "pitroom-research")}`,
    ".claude/skills/using-pitroom": `-> ${join(w.source, "using-pitroom")}`,
  };
  assert.deepEqual(await tree(w.home), { ...before, ...links });
  assert.equal((await w.record()).skills.length, 3);

  const second = await w.run("install", "--skills");
  assert.equal(second.code, 0, second.stderr);
  assert.doesNotMatch(second.stdout, /added/);
  assert.equal(second.stdout.match(/already there/g)?.length, 3);
  assert.deepEqual(await tree(w.home), { ...before, ...links });

  const out = await w.run("uninstall", "--skills");
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout.match(/ removed/g)?.length, 3);
  assert.deepEqual(await tree(w.home), before);
  assert.deepEqual((await w.record()).skills, []);
  const again = await w.run("uninstall", "--skills");
  assert.equal(again.code, 0);
  assert.match(again.stdout, /none to install or remove/);
});

Deno.test("install --skills --force moves the user's folder aside; uninstall gives it back", async () => {
  await using w = await world({ agents: false, claude: true });
  const mine = join(w.home, ".claude", "skills", "using-pitroom");
  await Deno.mkdir(mine, { recursive: true });
  await Deno.writeTextFile(join(mine, "SKILL.md"), "my own\n");
  const before = await tree(w.home);

  const out = await w.run("install", "--skills", "--force", "--json");
  assert.equal(out.code, 0, out.stderr);
  const replaced = JSON.parse(out.stdout).skills.find((c: { action: string }) =>
    c.action === "replaced"
  );
  assert.equal(replaced.path, mine);
  assert.equal(await Deno.readTextFile(join(replaced.backup, "SKILL.md")), "my own\n");
  assert.equal(await Deno.readLink(mine), join(w.source, "using-pitroom"));
  // ~/.agents does not exist: nothing is made there.
  await assert.rejects(Deno.lstat(join(w.home, ".agents")), Deno.errors.NotFound);

  const back = await w.run("uninstall", "--skills");
  assert.equal(back.code, 0, back.stderr);
  assert.match(back.stdout, /using-pitroom {2}removed, yours given back/);
  assert.deepEqual(await tree(w.home), before);
});

Deno.test("install --skills --copy copies; a copy the user changed since is left alone by uninstall", async () => {
  await using w = await world({ agents: true, claude: false });
  const out = await w.run("install", "--skills", "--copy");
  assert.equal(out.code, 0, out.stderr);
  const copy = join(w.home, ".agents", "skills", "using-pitroom");
  assert.ok((await Deno.lstat(copy)).isDirectory);
  assert.equal(
    await Deno.readTextFile(join(copy, "templates", "t.md")),
    "template of using-pitroom\n",
  );
  await Deno.writeTextFile(join(copy, "SKILL.md"), "edited by the user\n");
  const again = await w.run("install", "--skills", "--copy");
  assert.match(again.stdout, /using-pitroom {2}yours kept/);

  const un = await w.run("uninstall", "--skills");
  assert.equal(un.code, 0, un.stderr);
  assert.match(un.stdout, /using-pitroom {2}changed since the install: left alone/);
  assert.match(un.stdout, /pitroom-research {2}removed/);
  assert.equal(await Deno.readTextFile(join(copy, "SKILL.md")), "edited by the user\n");
  await assert.rejects(
    Deno.lstat(join(w.home, ".agents", "skills", "pitroom-research")),
    Deno.errors.NotFound,
  );
});

Deno.test("install --skills --dry-run writes nothing and says what it would do", async () => {
  await using w = await world();
  const before = await tree(w.home);
  const out = await w.run("install", "--skills", "--dry-run", "--json");
  assert.equal(out.code, 0, out.stderr);
  const report = JSON.parse(out.stdout);
  assert.equal(report.dryRun, true);
  assert.deepEqual(report.skills.map((c: { action: string }) => c.action), [
    "added",
    "added",
    "added",
    "added",
  ]);
  const text = await w.run("install", "--skills", "--dry-run");
  assert.equal(text.code, 0, text.stderr);
  assert.equal(text.stdout.match(/ would add/g)?.length, 4, text.stdout);
  assert.doesNotMatch(text.stdout, / added/);
  assert.deepEqual(await tree(w.home), before);
  await assert.rejects(Deno.stat(join(w.dir.path, "state", "installed.json")));
});

Deno.test("skills from the embedded list are written to the state dir and linked from there", async () => {
  await using dir = await tempDir("pitroom-bundle-");
  const home = join(dir.path, "home");
  await Deno.mkdir(join(home, ".claude"), { recursive: true });
  const sys = testSys({ stateDir: join(dir.path, "state"), env: { HOME: home } });
  const record = { schemaVersion: 1 as const, skills: [], mcp: [] };
  const files = [
    { path: "using-pitroom/SKILL.md", text: "---\nname: using-pitroom\n---\n" },
    { path: "using-pitroom/templates/a.md", text: "A\n" },
    { path: "README.md", text: "not a skill\n" },
  ];
  const options = {
    source: { kind: "bundle" as const, files },
    roots: [{ parent: join(home, ".claude"), dir: join(home, ".claude", "skills") }],
    copy: false,
    force: false,
    dryRun: false,
    stamp: "x",
  };
  const changes = await installSkills(sys, record, options);
  assert.deepEqual(changes.map((c) => [c.name, c.action]), [["using-pitroom", "added"]]);
  const link = join(home, ".claude", "skills", "using-pitroom");
  const target = join(dir.path, "state", "skills", "using-pitroom");
  assert.equal(await Deno.readLink(link), target);
  assert.equal(await Deno.readTextFile(join(link, "templates", "a.md")), "A\n");
  // A new version of the binary: the folder is rewritten, the link stays.
  files[1] = { path: "using-pitroom/templates/a.md", text: "A2\n" };
  const update = await installSkills(sys, record, options);
  assert.deepEqual(update.map((c) => c.action), ["unchanged"]);
  assert.equal(await Deno.readTextFile(join(link, "templates", "a.md")), "A2\n");
  assert.deepEqual((await uninstallSkills(record, false)).map((c) => c.action), ["removed"]);
  await assert.rejects(Deno.lstat(link), Deno.errors.NotFound);
});
