/**
 * The dashboard's door: who may come in, and with what.
 *
 * - A **one-time token** opens it once. Its owner mints it with this start's key (`dash.key` in
 *   the state dir, mode 0600, new at every start; `mintToken`): a nonce, an expiry and an
 *   HMAC-SHA256 of both. The server checks the MAC with the key it holds in memory, refuses a
 *   token past its expiry or spent already, and remembers spent nonces until they expire. A
 *   token of an earlier start fails the MAC: every restart retires every address handed out.
 * - A **session** is what a browser gets for a token: an id in an HttpOnly, SameSite=Strict
 *   cookie (it lets the browser load the page) and a **key** the page claims once, over
 *   `POST /api/session`, and keeps in its own origin's localStorage. Every API call carries the
 *   key. Cookies are shared by every port of a host, so a cookie alone would leak to any other
 *   server on 127.0.0.1 the browser visits (a worker's dev server); localStorage is per origin.
 *
 * Nothing here is written anywhere; a session lives as long as this server does.
 */

/** How long a minted token opens the dashboard (an hour). */
export const TOKEN_TTL_MS = 3_600_000;
/** The most sessions kept: past it the oldest goes (its browser needs a new address). */
const MAX_SESSIONS = 1000;
/** What a token looks like: nonce, expiry (seconds, base 36), MAC. */
const TOKEN = /^([0-9a-f]{16})\.([0-9a-z]{1,10})\.([0-9a-f]{32})$/;

/** What a token is worth: `ok` (spent now), `used`, `expired` or `bad` (not this start's). */
export type TokenCheck = "ok" | "used" | "expired" | "bad";

async function macOf(key: string, text: string): Promise<string> {
  const cryptoKey = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(key),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", cryptoKey, new TextEncoder().encode(text));
  return [...new Uint8Array(mac).slice(0, 16)].map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** Compares in time that does not depend on where the texts differ. */
export function sameText(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ b[i]!;
  return diff === 0;
}

/**
 * A one-time token for the dashboard that holds `key`, good for `TOKEN_TTL_MS` from `now`;
 * `nonce`: 8 random bytes as hex.
 */
export async function mintToken(key: string, options: { now: number; nonce: string }) {
  const expires = Math.ceil((options.now + TOKEN_TTL_MS) / 1000).toString(36);
  const body = `${options.nonce}.${expires}`;
  return `${body}.${await macOf(key, body)}`;
}

/** Options of a `Door`. */
export interface DoorOptions {
  /** This start's key (the one `dash.key` holds). */
  key: string;
  /** The time now, in ms. */
  now(): number;
  /** `bytes` random bytes as hex. */
  randomHex(bytes: number): string;
}

interface Session {
  key: string;
  claimed: boolean;
}

/** The door of one running dashboard. */
export class Door {
  #options: DoorOptions;
  /** Spent nonces, with the time (ms) each would have expired. */
  #spent = new Map<string, number>();
  /** Sessions by cookie value. */
  #sessions = new Map<string, Session>();
  /** The keys of the sessions. */
  #keys = new Set<string>();

  constructor(options: DoorOptions) {
    this.#options = options;
  }

  /** A new one-time token (the owner's, in this process). */
  mint(): Promise<string> {
    return mintToken(this.#options.key, {
      now: this.#options.now(),
      nonce: this.#options.randomHex(8),
    });
  }

  /** Checks `token` and, when it is good, spends it. */
  async spend(token: string): Promise<TokenCheck> {
    const m = TOKEN.exec(token);
    if (m === null) return "bad";
    const [, nonce, expires, mac] = m as unknown as [string, string, string, string];
    if (!sameText(mac, await macOf(this.#options.key, `${nonce}.${expires}`))) return "bad";
    const now = this.#options.now();
    for (const [n, until] of this.#spent) if (until < now) this.#spent.delete(n);
    const until = parseInt(expires, 36) * 1000;
    if (until < now) return "expired";
    if (this.#spent.has(nonce)) return "used";
    this.#spent.set(nonce, until);
    return "ok";
  }

  /** Opens a session; answers its cookie value. */
  open(): string {
    const cookie = this.#options.randomHex(16);
    this.#sessions.set(cookie, { key: this.#options.randomHex(16), claimed: false });
    while (this.#sessions.size > MAX_SESSIONS) {
      const [oldest, session] = this.#sessions.entries().next().value!;
      this.#sessions.delete(oldest);
      this.#keys.delete(session.key);
    }
    return cookie;
  }

  /** True when `cookie` is a session's. */
  admits(cookie: string | undefined): boolean {
    return cookie !== undefined && this.#sessions.has(cookie);
  }

  /** True when the session of `cookie` has not claimed its key yet. */
  unclaimed(cookie: string | undefined): boolean {
    return cookie !== undefined && this.#sessions.get(cookie)?.claimed === false;
  }

  /** The session's key, the first time it is asked for; null after that. */
  claim(cookie: string | undefined): string | null {
    if (cookie === undefined) return null;
    const session = this.#sessions.get(cookie);
    if (session === undefined || session.claimed) return null;
    session.claimed = true;
    this.#keys.add(session.key);
    return session.key;
  }

  /** True when `key` is a claimed session's key. */
  knows(key: string | undefined): boolean {
    return key !== undefined && this.#keys.has(key);
  }
}
