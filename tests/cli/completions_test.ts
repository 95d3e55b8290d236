/**
 * The shell completions, run by the real shells: bash calls the completion function with
 * COMP_WORDS set, zsh runs it after compinit (compadd stubbed to print what it is given, the one
 * builtin that needs a live completion widget), fish answers `complete -C`. Run ids and groups
 * come from a real state dir through `pitroom __complete`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { COMMANDS } from "../../src/cli/commands.ts";
import { completionScript } from "../../src/cli/completions.ts";
import { moduleCacheEnv, pitroom, pitroomArgv } from "../support/pitroom.ts";
import { tempDir } from "../support/temp.ts";
import { finishedRun, tempHome, writeRuns } from "./_setup.ts";

const RUN_A = "20261201-100000-aaaa";
const RUN_B = "20261201-110000-bbbb";

/** A state dir with two runs in two groups, and a `pitroom` on PATH that uses it. */
async function completionWorld() {
  const home = await tempHome();
  const work = join(home.root, "work");
  // Runs started where the completions are asked for: ids and groups are the folder's own.
  const a = { ...finishedRun(RUN_A, [], { input: 1, output: 1 }), group: "docs", cwd: work };
  const b = { ...finishedRun(RUN_B, [], { input: 1, output: 1 }), group: "fixes", cwd: work };
  await writeRuns(home.stateDir, [a, b]);
  // A worker of the config's own (an ACP agent) completes wherever a worker does.
  await home.writeConfig({ workers: { mine: { acp: ["my-agent", "--acp"] } } });
  const bin = join(home.root, "bin");
  await Deno.mkdir(bin);
  const argv = pitroomArgv().map((w) => `'${w}'`).join(" ");
  await Deno.writeTextFile(join(bin, "pitroom"), `#!/bin/sh\nexec ${argv} "$@"\n`, {
    mode: 0o755,
  });
  await Deno.mkdir(join(work, "src"), { recursive: true });
  await Deno.writeTextFile(join(work, "notes.md"), "x\n");
  const env = {
    ...home.env(),
    ...moduleCacheEnv(),
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
    NO_COLOR: "1",
  };
  return {
    home,
    env,
    work,
    async shell(cmd: string, args: string[], script: string): Promise<string> {
      const out = await new Deno.Command(cmd, {
        args: [...args, script],
        cwd: work,
        env: { ...env, HOME: home.root, ZDOTDIR: home.root },
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const dec = new TextDecoder();
      assert.equal(out.code, 0, `${cmd} failed: ${dec.decode(out.stderr)}`);
      return dec.decode(out.stdout);
    },
    async [Symbol.asyncDispose]() {
      await home[Symbol.asyncDispose]();
    },
  };
}

type World = Awaited<ReturnType<typeof completionWorld>>;

/** Shell-quoted for bash and zsh. */
function q(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** What bash completes for each command line (the last word is the one being completed). */
async function bash(w: World, script: string, lines: string[]): Promise<string[][]> {
  const calls = lines.map((line) => {
    // bash breaks words at `=` too: `--group=fi` is the words `--group`, `=` and `fi`.
    const words = line.split(" ").flatMap((w) => {
      const at = w.indexOf("=");
      if (at < 0) return [w];
      return [w.slice(0, at), "=", ...(at + 1 < w.length ? [w.slice(at + 1)] : [])];
    });
    return [
      `COMP_WORDS=(${words.map(q).join(" ")}); COMP_CWORD=${words.length - 1}; COMPREPLY=()`,
      `_pitroom; printf '%s\\n' "\${COMPREPLY[@]}"; echo '<end>'`,
    ].join("\n");
  });
  const out = await w.shell(
    "bash",
    ["--norc", "--noprofile", "-c"],
    [
      `source ${q(script)}`,
      ...calls,
    ].join("\n"),
  );
  return split(out);
}

/** What zsh completes for each command line. */
async function zsh(w: World, script: string, lines: string[]): Promise<string[][]> {
  const calls = lines.map((line) => {
    const words = line.split(" ");
    return `words=(${
      words.map(q).join(" ")
    }); CURRENT=${words.length}; _pitroom; print -r -- '<end>'`;
  });
  const out = await w.shell(
    "zsh",
    ["-f", "-c"],
    [
      `autoload -U compinit && compinit -u -d ${q(join(w.home.root, "zcompdump"))}`,
      `source ${q(script)}`,
      `[[ $_comps[pitroom] == _pitroom ]] || { print -u2 'not registered'; exit 1; }`,
      // The widget-only builtin and the file helpers print what they were asked to offer.
      // compadd keeps the words that start with the word being completed, as zsh's does.
      "compadd() { while (( $# )) && [[ $1 != -- ]]; do shift; done; shift;" +
      " print -rl -- ${(M)@:#${words[CURRENT]}*}; }",
      `_files() { print -r -- '<files>'; }`,
      `_directories() { print -r -- '<dirs>'; }`,
      ...calls,
    ].join("\n"),
  );
  return split(out);
}

/** What fish completes for each command line (`complete -C`, the candidates without descriptions). */
async function fish(w: World, script: string, lines: string[]): Promise<string[][]> {
  const calls = lines.map((line) =>
    `complete -C ${q(line)} | string replace -r '\\t.*' ''; echo '<end>'`
  );
  const out = await w.shell(
    "fish",
    ["--no-config", "-c"],
    [
      `source ${q(script)}`,
      ...calls,
    ].join("\n"),
  );
  return split(out);
}

function split(out: string): string[][] {
  const groups: string[][] = [[]];
  for (const line of out.split("\n")) {
    if (line === "<end>") groups.push([]);
    else if (line !== "") groups.at(-1)!.push(line);
  }
  groups.pop();
  return groups;
}

const visible = COMMANDS.filter((c) => !c.hidden);

/** Cases every shell answers the same way: [command line, expected candidates]. */
const CASES: [string, string[]][] = [
  ["pitroom ru", ["run"]],
  ["pitroom comp", ["completions"]],
  ["pitroom run --li", ["--link"]],
  ["pitroom apply ", [RUN_B, RUN_A, "last"]],
  ["pitroom wait -g ", ["fixes", "docs"]],
  ["pitroom run --continue ", [RUN_B, RUN_A, "last"]],
  ["pitroom run -W ", [
    "opencode",
    "codex",
    "claude",
    "gemini",
    "qwen",
    "kilo",
    "copilot",
    "crush",
    "mine",
  ]],
  ["pitroom run --tier ", ["cheap", "standard", "capable", "review", "audit"]],
  ["pitroom completions ", ["bash", "zsh", "fish"]],
  ["pitroom history ", ["stats", "import"]],
  ["pitroom models ", [
    "opencode",
    "codex",
    "claude",
    "gemini",
    "qwen",
    "kilo",
    "copilot",
    "crush",
    "mine",
  ]],
  ["pitroom run -m ", []],
];

/** Every flag of every visible command, completed from its first three letters. */
function flagCases(): [string, string][] {
  return visible.flatMap((def) =>
    def.flags.map((f): [string, string] => [
      `pitroom ${def.name} --${f.name.slice(0, 3)}`,
      `--${f.name}`,
    ])
  );
}

async function check(
  name: string,
  complete: (w: World, script: string, lines: string[]) => Promise<string[][]>,
  extra: [string, (got: string[]) => void][],
) {
  await using w = await completionWorld();
  const script = join(w.home.root, `pitroom.${name}`);
  await Deno.writeTextFile(script, completionScript(name as "bash"));
  const flags = flagCases();
  const lines = [...CASES.map(([l]) => l), ...flags.map(([l]) => l), ...extra.map(([l]) => l)];
  const got = await complete(w, script, lines);
  assert.equal(got.length, lines.length, `${name} answered ${got.length} of ${lines.length}`);
  CASES.forEach(([line, want], i) => {
    assert.deepEqual([...got[i]!].sort(), [...want].sort(), `${name}: ${line}`);
  });
  flags.forEach(([line, want], i) => {
    assert.ok(got[CASES.length + i]!.includes(want), `${name}: ${line} lacks ${want}`);
  });
  extra.forEach(([, test], i) => test(got[CASES.length + flags.length + i]!));
}

Deno.test("bash completes commands, every flag, workers, tiers, and run ids and groups from the state dir", async () => {
  await check("bash", bash, [
    ["pitroom run --group=", (got) => assert.deepEqual(got.sort(), ["docs", "fixes"])],
    ["pitroom run --group=fi", (got) => assert.deepEqual(got, ["fixes"])],
    ["pitroom run -d ", (got) => assert.deepEqual(got, ["src"])],
    ["pitroom run -f no", (got) => assert.deepEqual(got, ["notes.md"])],
  ]);
});

Deno.test("zsh (after compinit) completes commands, every flag, workers, tiers, run ids and groups", async () => {
  await check("zsh", zsh, [
    ["pitroom run -d ", (got) => assert.deepEqual(got, ["<dirs>"])],
    ["pitroom run -f ", (got) => assert.deepEqual(got, ["<files>"])],
  ]);
});

Deno.test("fish completes commands, every flag, workers, tiers, run ids and groups", async () => {
  await check("fish", fish, [
    [
      "pitroom run --group=",
      (got) => assert.deepEqual(got.sort(), ["--group=docs", "--group=fixes"]),
    ],
    ["pitroom run --group=fi", (got) => assert.deepEqual(got, ["--group=fixes"])],
    ["pitroom run -f no", (got) => assert.deepEqual(got, ["notes.md"])],
  ]);
});

Deno.test("zsh loads the script from $fpath as an autoloaded _pitroom", async () => {
  await using w = await completionWorld();
  const fpath = join(w.home.root, "fpath");
  await Deno.mkdir(fpath);
  await Deno.writeTextFile(join(fpath, "_pitroom"), completionScript("zsh"));
  const out = await w.shell(
    "zsh",
    ["-f", "-c"],
    [
      `fpath=(${q(fpath)} $fpath)`,
      `autoload -U compinit && compinit -u -d ${q(join(w.home.root, "zcompdump"))}`,
      `print -r -- $_comps[pitroom]`,
    ].join("\n"),
  );
  assert.equal(out.trim(), "_pitroom");
});

Deno.test("`pitroom completions` prints the script for its shell; a bad shell is exit 2", async () => {
  await using w = await completionWorld();
  for (const shell of ["bash", "zsh", "fish"]) {
    const r = await pitroom(["completions", shell], { env: w.env, cwd: w.work });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, completionScript(shell as "bash"));
  }
  const bad = await pitroom(["completions", "tcsh"], { env: w.env, cwd: w.work });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Unknown shell "tcsh"/);
  const none = await pitroom(["__complete", "runs"], {
    env: { ...w.env, PITROOM_STATE_DIR: join(w.home.root, "empty") },
    cwd: w.work,
  });
  assert.equal(none.code, 0, none.stderr);
  assert.equal(none.stdout, "");
});

Deno.test("the scripts pass the shells' own syntax checks and shellcheck", async () => {
  await using dir = await tempDir();
  for (const [shell, check] of [["bash", ["-n"]], ["zsh", ["-n"]], ["fish", ["-n"]]] as const) {
    const file = join(dir.path, `pitroom.${shell}`);
    await Deno.writeTextFile(file, completionScript(shell));
    const out = await new Deno.Command(shell, { args: [...check, file] }).output();
    assert.equal(out.code, 0, `${shell} -n: ${new TextDecoder().decode(out.stderr)}`);
  }
  const file = join(dir.path, "pitroom.bash");
  const sc = await new Deno.Command("shellcheck", { args: ["-s", "bash", file] }).output();
  assert.equal(sc.code, 0, new TextDecoder().decode(sc.stdout));
});

Deno.test("fish starts pitroom for run ids only when an argument is typed, never at a flag", async () => {
  await using dir = await tempDir();
  const script = join(dir.path, "pitroom.fish");
  await Deno.writeTextFile(script, completionScript("fish"));
  const log = join(dir.path, "calls");
  await Deno.writeTextFile(
    join(dir.path, "pitroom"),
    `#!/bin/sh\necho "$*" >> ${q(log)}\necho ${RUN_A}\n`,
    { mode: 0o755 },
  );
  const lines = ["pitroom apply --js", "pitroom wait -", "pitroom apply "];
  const out = await new Deno.Command("fish", {
    args: [
      "--no-config",
      "-c",
      [`source ${q(script)}`, ...lines.map((l) => `complete -C ${q(l)}; echo '<end>'`)].join("\n"),
    ],
    env: { PATH: `${dir.path}:/usr/bin:/bin` },
    stdout: "piped",
  }).output();
  const got = split(new TextDecoder().decode(out.stdout));
  assert.ok(got[0]!.some((c) => c.startsWith("--json")), got[0]!.join(","));
  assert.ok(got[2]!.some((c) => c.startsWith(RUN_A)), got[2]!.join(","));
  // One start in all: the argument's, not the two flags'.
  assert.deepEqual((await Deno.readTextFile(log)).trim().split("\n"), ["__complete runs"]);
});
