/**
 * A real browser for the dashboard's tests and benchmark: Debian's Chromium through
 * playwright-core, driven from a child process (browser_driver.ts, `deno run -A`), so a test
 * keeps the project's permission set and Deno's sanitizers. `openBrowser()` answers null when
 * Chromium is not installed (the tests then skip with a message saying so).
 */

/** Where Debian puts Chromium (CI installs it: scripts/install_toolchain.sh). */
export const CHROMIUM = "/usr/bin/chromium";

/** Why the browser tests cannot run here, or null when they can. */
export function browserMissing(): string | null {
  try {
    Deno.statSync(CHROMIUM);
    return null;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return `${CHROMIUM} is not installed (apt-get install -y chromium)`;
    }
    throw error;
  }
}

/** One page of the browser (the first is 0). */
export class BrowserPage {
  constructor(readonly browser: Browser, readonly index: number) {}

  #call(op: string, args: Record<string, unknown> = {}) {
    return this.browser.call(op, { ...args, page: this.index });
  }

  goto(url: string): Promise<unknown> {
    return this.#call("goto", { url });
  }
  reload(): Promise<unknown> {
    return this.#call("reload");
  }
  click(selector: string): Promise<unknown> {
    return this.#call("click", { selector });
  }
  fill(selector: string, value: string): Promise<unknown> {
    return this.#call("fill", { selector, value });
  }
  press(selector: string, key: string): Promise<unknown> {
    return this.#call("press", { selector, key });
  }
  /** Waits until `selector` is visible (or the given state). */
  waitFor(
    selector: string,
    options: { state?: "visible" | "attached" | "detached"; timeoutMs?: number } = {},
  ): Promise<unknown> {
    return this.#call("waitFor", { selector, ...options });
  }
  /**
   * Waits until a JavaScript expression is truthy in the page (re-checked at every DOM change);
   * answers the page's `performance.now()` when it became so.
   */
  async waitForFunction(expression: string, timeoutMs = 15_000): Promise<number> {
    return Number(await this.#call("waitForFunction", { expression, timeoutMs }));
  }
  /** Evaluates an expression in the page (a promise is awaited). */
  eval<T>(expression: string): Promise<T> {
    return this.#call("eval", { expression }) as Promise<T>;
  }
  async text(selector: string): Promise<string> {
    return String(await this.#call("text", { selector }) ?? "");
  }
  async count(selector: string): Promise<number> {
    return Number(await this.#call("count", { selector }));
  }
  async attr(selector: string, name: string): Promise<string | null> {
    return await this.#call("attr", { selector, name }) as string | null;
  }
  colorScheme(scheme: "light" | "dark"): Promise<unknown> {
    return this.#call("colorScheme", { scheme });
  }
  screenshot(
    path: string,
    options: {
      fullPage?: boolean;
      clip?: { x: number; y: number; width: number; height: number };
    } = {},
  ): Promise<unknown> {
    return this.#call("screenshot", { path, ...options });
  }
}

/** The browser process. */
export class Browser implements AsyncDisposable {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  #next = 0;
  #reading: Promise<void>;
  readonly page: BrowserPage;

  constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#reading = this.#read();
    this.page = new BrowserPage(this, 0);
  }

  async #read(): Promise<void> {
    let buf = "";
    for await (const chunk of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf("\n")) !== -1) {
        const msg = JSON.parse(buf.slice(0, nl)) as { id: number; value?: unknown; error?: string };
        buf = buf.slice(nl + 1);
        const p = this.#pending.get(msg.id);
        this.#pending.delete(msg.id);
        if (msg.error !== undefined) p?.reject(new Error(`browser: ${msg.error}`));
        else p?.resolve(msg.value);
      }
    }
    for (const p of this.#pending.values()) p.reject(new Error("the browser process ended"));
  }

  /** Sends one request to the driver. */
  call(op: string, args: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.#next++;
    const answer = new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    void this.#writer.write(new TextEncoder().encode(JSON.stringify({ id, op, args }) + "\n"));
    return answer;
  }

  /** Another page (tab) of the same browser context. */
  async newPage(): Promise<BrowserPage> {
    return new BrowserPage(this, Number(await this.call("newPage")));
  }

  /** Replaces every page by one in a new context (empty cache and storage): `page` again. */
  async freshContext(): Promise<void> {
    await this.call("freshContext");
  }

  /** Errors the pages logged since the last call. */
  async consoleErrors(): Promise<string[]> {
    return await this.call("consoleErrors") as string[];
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#writer.close();
    await this.#reading;
    await this.#child.status;
  }
}

/** Starts Chromium (null when it is not installed). */
export function openBrowser(): Browser | null {
  if (browserMissing() !== null) return null;
  const driver = new URL("./browser_driver.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", driver, CHROMIUM],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  return new Browser(child);
}
