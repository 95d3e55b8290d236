import assert from "node:assert/strict";
import { redactContent, redactDiff } from "../../src/engine/review/redact.ts";

const AWS = "AKIA" + "IOSFODNN7EXAMPLE";
const SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY";

Deno.test("redactDiff() drops a secret-looking file's section by name", () => {
  const diff = [
    "diff --git a/.env b/.env",
    "new file mode 100644",
    "--- /dev/null",
    "+++ b/.env",
    "@@ -0,0 +1 @@",
    "+DB_PASSWORD=hunter2hunter2",
    "diff --git a/src/a.ts b/src/a.ts",
    "--- a/src/a.ts",
    "+++ b/src/a.ts",
    "@@ -1 +1 @@",
    "-x",
    "+y",
  ].join("\n");
  const r = redactDiff(diff);
  assert.deepEqual(r.files, [".env"]);
  assert.doesNotMatch(r.text, /hunter2/);
  assert.match(r.text, /REDACTED: "\.env" looks like a secret file/);
  assert.match(r.text, /\+y/);
  assert.equal(r.secrets, 0);
});

Deno.test("redactContent() replaces keys, tokens and private key blocks", () => {
  const text = [
    `+const id = "${AWS}";`,
    `+aws_secret_access_key = ${SECRET}`,
    "+token: ghp_" + "a".repeat(36),
    "+-----BEGIN RSA PRIVATE KEY-----",
    "+MIIEowIBAAKCAQEA",
    "+-----END RSA PRIVATE KEY-----",
    "+const ok = 1;",
  ].join("\n");
  const r = redactContent(text);
  assert.equal(r.secrets, 4);
  for (const leaked of [AWS, SECRET, "ghp_aaaa", "MIIEowIBAAKCAQEA"]) {
    assert.doesNotMatch(r.text, new RegExp(leaked.replace(/[/+]/g, "\\$&")));
  }
  assert.match(r.text, /aws_secret_access_key = \[REDACTED AWS secret\]/);
  assert.match(r.text, /\+const ok = 1;/);
});

Deno.test("redactContent() leaves ordinary code alone", () => {
  const code = "const password = prompt();\nconst key = 'short';\nfunction token() {}\n";
  assert.deepEqual(redactContent(code), { text: code, secrets: 0 });
});
