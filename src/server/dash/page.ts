/**
 * The page: the HTML the server renders (page.html, with the assets' content hashes in their
 * addresses and whether the session's key is still to be claimed; it holds no secret) and the two assets built into ui/dist/ (`deno task build:ui`),
 * embedded through text imports so `deno run` and the compiled binary serve the same bytes. The
 * assets' addresses change with their content, so a hashed address is cached for good; the page
 * itself never is (it is behind the door: a cached copy would outlive the session).
 */
import html from "./page.html" with { type: "text" };
import js from "../../../ui/dist/app.js" with { type: "text" };
import css from "../../../ui/dist/app.css" with { type: "text" };
import favicon from "./favicon.svg" with { type: "text" };

/** The embedded files as they are (`pitroom self-check` checks each is there and not empty). */
export const PAGE_FILES = {
  "page.html": html,
  "app.js": js,
  "app.css": css,
  "favicon.svg": favicon,
} as const;

/** The tab's icon (`GET /favicon.svg`, open to anyone like `/door.js`: it tells nothing). */
export const FAVICON = favicon;

/** The Content-Security-Policy of every answer: nothing inline, nothing from elsewhere. */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** An embedded asset. */
export interface Asset {
  body: string;
  type: string;
  /** The first 16 hex digits of its SHA-256. */
  hash: string;
}

/** The page's parts. */
export interface Page {
  js: Asset;
  css: Asset;
  /** The HTML; `fresh`: the session has not claimed its key yet (the page claims it). */
  html(fresh: boolean): string;
}

async function hashOf(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest).slice(0, 8)].map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** Builds the page from the embedded files (or the given ones, for tests). */
export async function loadPage(files: { js?: string; css?: string } = {}): Promise<Page> {
  const script = files.js ?? js;
  const style = files.css ?? css;
  const jsAsset = {
    body: script,
    type: "text/javascript; charset=utf-8",
    hash: await hashOf(script),
  };
  const cssAsset = { body: style, type: "text/css; charset=utf-8", hash: await hashOf(style) };
  return {
    js: jsAsset,
    css: cssAsset,
    html: (fresh) =>
      html.replaceAll("{{js}}", jsAsset.hash).replaceAll("{{css}}", cssAsset.hash)
        .replaceAll("{{session}}", fresh ? "fresh" : "claimed"),
  };
}
