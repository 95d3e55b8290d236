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
  ...(["page.html", "app.js", "app.css"] as const).map((file) => ({
    name: `dashboard ${file}`,
    load: () => import("../server/dash/page.ts").then((m) => m.PAGE_FILES[file]),
  })),
];
