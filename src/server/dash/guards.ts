/**
 * The dashboard's guards (Hono middleware), in the order a request meets them:
 *
 * 1. The Host: `127.0.0.1:PORT` or `localhost:PORT` (the port the server listens on), else 403
 *    `forbidden_host`: a page of another site that rebinds its name to 127.0.0.1 sends its own
 *    name (DNS rebinding).
 * 2. The door (door.ts): `GET /?token=T` spends a one-time token and opens a session (the
 *    cookie); everything else but `/api/health`, `/door.js` and `/favicon.svg` needs the
 *    session's cookie, and
 *    every API call but `POST /api/session` also the session's key (the `X-Pitroom-Key` header;
 *    the stream, which `EventSource` opens without headers: `?key=`). The owner may send one
 *    request with a one-time token in `X-Pitroom-Token` instead. Else 401, a page or JSON
 *    telling the user to run `pitroom dash`.
 * 3. A POST also needs the page's own Origin (403 `bad_origin`).
 */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { KEY_HEADER, TOKEN_HEADER } from "./api_types.ts";
import type { Door } from "./door.ts";
import { DOOR_HTML, FRESH_HINT, type Refusal, refusalHtml, refusalText } from "./door_pages.ts";
import { apiError } from "./errors.ts";

/** The Hosts a request may name. */
export function localHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

/** The session cookie's name: cookies are shared by every port, so the name carries it. */
export function cookieName(port: number): string {
  return `pitroom-dash-${port}`;
}

/** Paths anyone on the machine may ask for: they tell nothing and change nothing. */
const OPEN_PATHS = new Set(["/api/health", "/door.js", "/favicon.svg"]);

/** Refuses a request whose Host is not local (403 `forbidden_host`). */
export function hostGuard(port: number): MiddlewareHandler {
  const hosts = localHosts(port);
  return async (c, next) => {
    const host = c.req.header("host")?.toLowerCase();
    if (host === undefined || !hosts.has(host)) {
      return apiError(c, 403, "forbidden_host", `Host "${host ?? ""}" is not this dashboard`);
    }
    await next();
  };
}

function refuse(c: Context, why: Refusal): Response {
  c.header("Cache-Control", "no-store");
  if (c.req.path.startsWith("/api/")) {
    const code = why === "none" ? "no_session" : `token_${why}`;
    return apiError(c, 401, code, refusalText(why), FRESH_HINT);
  }
  return c.html(refusalHtml(why), 401);
}

/** Lets in a request of a session (or the owner's one-time request); refuses the rest (401). */
export function doorGuard(door: Door, port: number): MiddlewareHandler {
  const name = cookieName(port);
  return async (c, next) => {
    const path = c.req.path;
    if (OPEN_PATHS.has(path)) return await next();
    const inside = door.admits(getCookie(c, name));
    const token = c.req.query("token");
    if (path === "/" && c.req.method === "GET" && token !== undefined) {
      const check = await door.spend(token);
      if (check !== "ok" && !inside) return refuse(c, check);
      // A good token opens a session; a browser already in just goes on to the clean address.
      if (check === "ok") {
        setCookie(c, name, door.open(), { httpOnly: true, sameSite: "Strict", path: "/" });
      }
      c.header("Cache-Control", "no-store");
      return c.html(DOOR_HTML);
    }
    if (!inside) {
      const owner = c.req.header(TOKEN_HEADER);
      if (owner !== undefined && path.startsWith("/api/")) {
        const check = await door.spend(owner);
        if (check !== "ok") return refuse(c, check);
        return await next();
      }
      return refuse(c, "none");
    }
    if (path.startsWith("/api/") && path !== "/api/session") {
      const key = c.req.header(KEY_HEADER) ??
        (path === "/api/stream" ? c.req.query("key") : undefined);
      if (!door.knows(key)) {
        return apiError(
          c,
          401,
          "bad_key",
          `The ${KEY_HEADER} of this page is not one of this dashboard's (it may have restarted)`,
          FRESH_HINT,
        );
      }
    }
    await next();
  };
}

/** Refuses a POST without the page's own Origin (403 `bad_origin`). */
export function originGuard(): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header("host")?.toLowerCase() ?? "";
    const origin = c.req.header("origin")?.toLowerCase();
    if (origin !== `http://${host}`) {
      return apiError(c, 403, "bad_origin", `Origin "${origin ?? ""}" is not this dashboard`);
    }
    await next();
  };
}
