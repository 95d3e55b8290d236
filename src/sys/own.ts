/**
 * Tables looked up by names that come from outside (config keys, effort levels, event types):
 * every plain object inherits `constructor`, `toString`, `hasOwnProperty` and the like, so a
 * lookup reads own properties only.
 */

/** The own property `key` of `table`, or undefined. */
export function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
