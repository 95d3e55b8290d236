/**
 * The two small pages of the door: the one a good token gets (it sets the session's cookie and
 * its script, `/door.js`, replaces the address by the clean one, keeping `#<run-id>`), and the
 * refusal (401) that tells the user how to get a fresh address. Neither has inline script or
 * style (the CSP forbids both).
 */
import type { TokenCheck } from "./door.ts";

/** The script of the door page: the clean address replaces the one with the token. */
export const DOOR_JS = 'location.replace("/" + location.hash);\n';

/** What to do about a refusal. */
export const FRESH_HINT = "run `pitroom dash` and open the address it prints";

/** The door page: a good token was spent, the cookie is set with it. */
export const DOOR_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Pitroom</title>
    <link rel="icon" href="/favicon.svg" type="image/svg+xml">
    <script src="/door.js"></script>
  </head>
  <body>
    <p><a href="/">Open the dashboard</a></p>
  </body>
</html>
`;

/** Why a request was refused. */
export type Refusal = Exclude<TokenCheck, "ok"> | "none";

/** The sentence saying why. */
export function refusalText(why: Refusal): string {
  switch (why) {
    case "used":
      return "This address was opened already: each address lets one browser in, once";
    case "expired":
      return "This address has expired: an address is good for an hour";
    case "bad":
      return "This address is not this dashboard's: it is from before the dashboard restarted, or damaged";
    case "none":
      return "This browser has no pass for this dashboard (or it restarted since)";
  }
}

/** The refusal page. */
export function refusalHtml(why: Refusal): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="color-scheme" content="light dark">
    <title>Pitroom: a fresh address is needed</title>
    <link rel="icon" href="/favicon.svg" type="image/svg+xml">
  </head>
  <body>
    <h1>Pitroom's dashboard needs a fresh address</h1>
    <p>${refusalText(why)}.</p>
    <p>Run <code>pitroom dash</code> in a terminal and open the address it prints. Each address
    lets one browser in, once; that browser then stays in (reloads and new tabs too) until the
    dashboard stops.</p>
  </body>
</html>
`;
}
