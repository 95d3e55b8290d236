/**
 * The HTTP server's first check, before anything else: the request must name a local Host,
 * and an Origin, when it has one, must be a local page (a web page elsewhere, or a DNS name
 * rebound to 127.0.0.1, is refused with 403).
 */

const LOCAL_NAMES = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** True when a Host header names this machine (any port). */
export function isLocalHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    const url = new URL(`http://${host}`);
    return LOCAL_NAMES.has(url.hostname) && `${url.host}`.toLowerCase() === host.toLowerCase();
  } catch (error) {
    if (error instanceof TypeError) return false;
    throw error;
  }
}

/** True when there is no Origin header, or it is an http page of this machine. */
export function isLocalOrigin(origin: string | undefined): boolean {
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    return url.protocol === "http:" && LOCAL_NAMES.has(url.hostname);
  } catch (error) {
    if (error instanceof TypeError) return false;
    throw error;
  }
}
