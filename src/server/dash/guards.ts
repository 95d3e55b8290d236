/**
 * The dashboard's guards (Hono middleware). Every request needs a local Host (`127.0.0.1:PORT`
 * or `localhost:PORT`, the port the server listens on): a page of another site that rebinds its
 * name to 127.0.0.1 sends its own name and is refused (DNS rebinding). A write (POST) also needs
 * the page's own Origin and the per-start secret the page was served with.
 */
import type { MiddlewareHandler } from "hono";
import { SECRET_HEADER } from "./api_types.ts";
import { apiError } from "./errors.ts";

/** The Hosts a request may name. */
export function localHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

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

/** Refuses a write without the page's own Origin (`bad_origin`) or secret (`bad_secret`). */
export function writeGuard(secret: string): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header("host")?.toLowerCase() ?? "";
    const origin = c.req.header("origin")?.toLowerCase();
    if (origin !== `http://${host}`) {
      return apiError(c, 403, "bad_origin", `Origin "${origin ?? ""}" is not this dashboard`);
    }
    if (!sameSecret(c.req.header(SECRET_HEADER) ?? "", secret)) {
      return apiError(
        c,
        403,
        "bad_secret",
        `The ${SECRET_HEADER} header does not hold this dashboard's secret`,
        "reload the page (the secret changes every time the dashboard starts)",
      );
    }
    await next();
  };
}

/** Compares in time that does not depend on where the texts differ. */
function sameSecret(given: string, secret: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(secret);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ b[i]!;
  return diff === 0;
}
