/**
 * The browser half of tests/support/browser.ts: Debian's Chromium driven by playwright-core, in
 * its own `deno run -A` process (playwright reads /proc when it loads, which only `-A` allows; the
 * tests themselves keep the project's permission set). It reads one JSON request a line from
 * stdin (`{ id, op, args }`) and answers one line on stdout (`{ id, value }` or `{ id, error }`);
 * it closes the browser when stdin ends.
 */
import { type Browser, chromium, type Page } from "playwright-core";

/** Chromium's flags for a headless run in a container (docs/toolchain.md "Browser"). */
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
];

type Args = Record<string, unknown>;

async function main(executablePath: string): Promise<void> {
  const browser: Browser = await chromium.launch({ executablePath, args: ARGS });
  const options = { viewport: { width: 1280, height: 860 } };
  let context = await browser.newContext(options);
  const pages: Page[] = [await context.newPage()];
  const page = (a: Args) => pages[Number(a.page ?? 0)]!;
  const ops: Record<string, (a: Args) => Promise<unknown>> = {
    newPage: async () => {
      pages.push(await context.newPage());
      return pages.length - 1;
    },
    // A new context (empty cache and storage, like a first visit) with one page, page 0.
    freshContext: async () => {
      await context.close();
      context = await browser.newContext(options);
      context.on("page", (p) => watch(p, errors));
      pages.splice(0, pages.length, await context.newPage());
    },
    goto: async (a) => void await page(a).goto(String(a.url)),
    reload: async (a) => void await page(a).reload(),
    click: async (a) => void await page(a).click(String(a.selector), { timeout: 10_000 }),
    fill: async (a) => void await page(a).fill(String(a.selector), String(a.value)),
    press: async (a) => void await page(a).press(String(a.selector), String(a.key)),
    waitFor: async (a) =>
      void await page(a).waitForSelector(String(a.selector), {
        state: (a.state as "visible" | "attached" | "detached" | undefined) ?? "visible",
        timeout: Number(a.timeoutMs ?? 15_000),
      }),
    // Playwright's own waitForFunction evaluates a string with `new Function`, which the
    // page's CSP forbids; this re-checks the condition on every change of the DOM instead.
    waitForFunction: (a) =>
      page(a).evaluate(untilTrue(String(a.expression), Number(a.timeoutMs ?? 15_000))),
    eval: (a) => page(a).evaluate(String(a.expression)),
    text: (a) => page(a).textContent(String(a.selector), { timeout: 10_000 }),
    count: (a) => page(a).locator(String(a.selector)).count(),
    attr: (a) => page(a).getAttribute(String(a.selector), String(a.name), { timeout: 10_000 }),
    colorScheme: (a) => page(a).emulateMedia({ colorScheme: a.scheme as "light" | "dark" }),
    screenshot: async (a) =>
      void await page(a).screenshot({
        path: String(a.path),
        fullPage: a.fullPage === true,
        animations: "disabled",
        ...(a.clip
          ? { clip: a.clip as { x: number; y: number; width: number; height: number } }
          : {}),
      }),
    consoleErrors: () => Promise.resolve(errors.splice(0)),
  };
  const errors: string[] = [];
  for (const p of pages) watch(p, errors);
  context.on("page", (p) => watch(p, errors));

  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
  let buf = "";
  const encoder = new TextEncoder();
  const reply = (v: unknown) => Deno.stdout.write(encoder.encode(JSON.stringify(v) + "\n"));
  for await (const chunk of lines) {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf("\n")) !== -1) {
      const { id, op, args } = JSON.parse(buf.slice(0, nl)) as {
        id: number;
        op: string;
        args: Args;
      };
      buf = buf.slice(nl + 1);
      const fn = ops[op];
      try {
        if (!fn) throw new Error(`unknown op "${op}"`);
        await reply({ id, value: (await fn(args)) ?? null });
      } catch (error) {
        await reply({ id, error: error instanceof Error ? error.message : String(error) });
      }
    }
  }
  await browser.close();
}

/**
 * An expression that resolves once `condition` holds, checked at each DOM change, with the
 * page's `performance.now()` at that moment.
 */
function untilTrue(condition: string, timeoutMs: number): string {
  return `new Promise((resolve, reject) => {
    const check = () => {
      if (${condition}) {
        observer.disconnect();
        clearTimeout(timer);
        resolve(performance.now());
      }
    };
    const observer = new MutationObserver(check);
    const timer = setTimeout(() => {
      observer.disconnect();
      reject(new Error(${
    JSON.stringify(`timed out after ${timeoutMs}ms waiting for ${condition}`)
  }));
    }, ${timeoutMs});
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    check();
  })`;
}

function watch(p: Page, errors: string[]): void {
  p.on("console", (m) => {
    if (m.type() === "error") errors.push(`${m.text()} (${m.location().url})`);
  });
  p.on("pageerror", (e) => errors.push(e.message));
}

await main(Deno.args[0] ?? "/usr/bin/chromium");
