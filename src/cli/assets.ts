/**
 * What the program carries inside it (text imports, so `deno run` and the compiled binary read
 * the same bytes): each asset is loaded by the module that uses it. `pitroom self-check` loads
 * every one and checks it is there and not empty.
 */

/** One embedded asset: a name, and how its module hands over the text. */
export interface EmbeddedAsset {
  name: string;
  load: () => Promise<string | readonly string[]>;
}

/** Every embedded asset of the program. */
export const EMBEDDED_ASSETS: readonly EmbeddedAsset[] = [
  {
    name: "dashboard page (ui/dist/app.js, app.css, page.html)",
    load: () =>
      import("../server/dash/page.ts").then(async (m) => {
        const page = await m.loadPage();
        return [page.js.body, page.css.body, page.html(true)];
      }),
  },
  {
    name: "worker prompt templates (src/engine/run/prompts/)",
    load: () => import("../engine/present.ts").then((m) => Object.values(m.PROMPT_TEMPLATES)),
  },
  {
    name: "plan and review templates (skills/pitroom-driven-development/)",
    load: () =>
      import("../engine/present.ts").then((m) => Object.values(m.TEMPLATES).map((t) => t.text)),
  },
  {
    name: "audit templates (src/engine/audit/)",
    load: () =>
      import("../engine/present.ts").then((m) => [m.auditPrompt("", ""), m.fixPrompt([])]),
  },
  {
    name: "MCP prompts (src/server/mcp/prompts/)",
    load: () => import("../server/mcp/prompts.ts").then((m) => m.PROMPTS.map((p) => p.text)),
  },
  {
    name: "skills (skills/)",
    load: () =>
      import("./skills_bundle.ts").then((m) => {
        if (m.SKILL_FILES.length < 14) throw new Error(`only ${m.SKILL_FILES.length} files`);
        return m.SKILL_FILES.map((f) => f.text);
      }),
  },
];
