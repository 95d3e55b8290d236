/**
 * Builds the dashboard page into ui/dist/app.js and ui/dist/app.css, which the server embeds with
 * text imports (so `deno run` and the compiled binary take the same path). Run by `deno task
 * build:ui`, and first by `check`, `test` and `compile`.
 */
const root = new URL("../ui/", import.meta.url).pathname;
const deno = Deno.execPath();
const out = `${root}dist`;
await Deno.mkdir(out, { recursive: true });
const bundle = new Deno.Command(deno, {
  args: [
    "bundle",
    "--quiet",
    "--platform",
    "browser",
    "--minify",
    "-o",
    `${out}/app.js`,
    `${root}src/app.tsx`,
  ],
  cwd: root,
  stdout: "inherit",
  stderr: "inherit",
});
const { code } = await bundle.output();
if (code !== 0) Deno.exit(code);
await Deno.writeTextFile(`${out}/app.css`, await Deno.readTextFile(`${root}src/app.css`));
