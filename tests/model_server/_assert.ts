/**
 * The few assertions these tests use, over `node:assert` (JSR's `@std/assert` is not reachable).
 */
import assert from "node:assert/strict";

/** Deep, strict equality. */
export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  assert.deepStrictEqual(actual, expected, message);
}

/** `text` includes `part`. */
export function assertIncludes(text: string, part: string): void {
  if (!text.includes(part)) {
    throw new assert.AssertionError({
      message: `expected ${JSON.stringify(text.slice(0, 500))} to include ${JSON.stringify(part)}`,
    });
  }
}

/** `fn` throws an instance of `type` whose message includes `part`. */
export function assertThrows(
  fn: () => unknown,
  type: new (...args: never[]) => Error,
  part: string,
): void {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof type)) throw error;
    assertIncludes(error.message, part);
    return;
  }
  throw new assert.AssertionError({
    message: `expected a throw including ${JSON.stringify(part)}`,
  });
}
