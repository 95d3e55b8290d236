/**
 * The README's picture of the dashboard is of the page as it is (tests/ui/_pictures.ts): it fails
 * when the page's sources changed since docs/dashboard.png was taken by the browser test.
 */
import assert from "node:assert/strict";
import { pageDigest, recordedDigest } from "./_pictures.ts";

Deno.test("docs/dashboard.png was taken of the dashboard's page as it is now", async () => {
  assert.equal(
    await recordedDigest(),
    await pageDigest(),
    "the dashboard's page changed since docs/dashboard.png was taken: run `deno task docs:pictures` and commit the picture",
  );
});
