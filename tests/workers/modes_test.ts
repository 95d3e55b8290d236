import assert from "node:assert/strict";
import { MODE_NAMES, type ModeFacts, MODES } from "../../src/workers/modes.ts";
import type { Mode } from "../../src/workers/types.ts";
import { runRequestSchema } from "../../src/engine/request/request.ts";

/** Every column of the table; a column added to `ModeFacts` and not named here fails to check. */
const COLUMNS = [
  "edits",
  "keepsChanges",
  "usesCopy",
  "editsInPlace",
  "secretsAllowed",
  "answerOnly",
] as const satisfies readonly (keyof ModeFacts)[];
const _allColumns: [Exclude<keyof ModeFacts, typeof COLUMNS[number]>] extends [never] ? true
  : false = true;

// A mode added to the type without a row does not type-check (the directive fails when it does).
// @ts-expect-error: "review" has no row in MODES
const _noRow: Record<Mode | "review", ModeFacts> = MODES;

Deno.test("MODES has a row for every mode, with every column a boolean", () => {
  assert.deepEqual(MODE_NAMES, ["read", "write", "isolate"]);
  assert.deepEqual(Object.keys(MODES), MODE_NAMES);
  for (const mode of MODE_NAMES) {
    assert.deepEqual(Object.keys(MODES[mode]).sort(), [...COLUMNS].sort(), mode);
    for (const column of COLUMNS) assert.equal(typeof MODES[mode][column], "boolean");
  }
});

Deno.test("MODES columns agree with each other", () => {
  for (const mode of MODE_NAMES) {
    const m = MODES[mode];
    // Kept changes, a copy and secrets are for modes that may edit; in place means not a copy.
    if (m.keepsChanges || m.usesCopy || m.secretsAllowed) assert.ok(m.edits, mode);
    assert.equal(m.editsInPlace, m.edits && !m.usesCopy, mode);
    // A run whose answer is its whole result keeps no changes.
    if (m.answerOnly) assert.ok(!m.keepsChanges, mode);
  }
});

Deno.test("MODES says what each mode means", () => {
  assert.deepEqual(MODES.read, {
    edits: false,
    keepsChanges: false,
    usesCopy: false,
    editsInPlace: false,
    secretsAllowed: false,
    answerOnly: true,
  });
  assert.equal(MODES.write.editsInPlace && MODES.write.keepsChanges, true);
  assert.equal(MODES.isolate.usesCopy && !MODES.isolate.editsInPlace, true);
});

Deno.test("the request schema takes exactly the table's modes", () => {
  for (const mode of MODE_NAMES) assert.ok(runRequestSchema().safeParse({ mode }).success, mode);
  assert.ok(!runRequestSchema().safeParse({ mode: "review" }).success);
});
