/**
 * Redaction of a review package before it leaves the machine (pure). By file name: every file
 * section of a diff whose path looks like a secret (`isSecretPath`: `.env`, `*.pem`, `id_rsa`,
 * ...) is replaced by one line saying so. By content: private key blocks, cloud and service
 * keys and tokens, and `password = ...`-style assignments anywhere in the text become
 * `[REDACTED ...]`. The count says how many of each were taken out.
 */
import { isSecretPath } from "../../confine/secrets.ts";

/** What redaction took out. */
export interface Redaction {
  text: string;
  /** Files left out by name. */
  files: string[];
  /** Secrets replaced by content. */
  secrets: number;
}

/** Content patterns: each match is one secret. */
const PATTERNS: { name: string; re: RegExp }[] = [
  {
    name: "private key",
    re:
      /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END \1PRIVATE KEY\2-----/g,
  },
  { name: "AWS key", re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b/g },
  {
    name: "AWS secret",
    re: /(aws_?secret_?(?:access_?)?key\s*["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}/gi,
  },
  { name: "GitHub token", re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b/g },
  { name: "Slack token", re: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { name: "API key", re: /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}\b/g },
  { name: "Google key", re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { name: "Stripe key", re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g },
  { name: "JWT", re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g },
  {
    // A quoted literal assigned to a secret-sounding name: `password: "..."`, `api_key = '...'`.
    name: "secret",
    re:
      /((?:password|passwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)\w*["']?\s*[:=]\s*["'])[^\s"'`]{8,}(?=["'])/gi,
  },
  {
    // An environment line: `DB_PASSWORD=...`, `export GITHUB_TOKEN=...`.
    name: "secret",
    re:
      /^([+\- ]?(?:export\s+)?[A-Z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_KEY|APIKEY)[A-Z0-9_]*=["']?)[^\s"']{8,}/gm,
  },
];

/** Replaces secrets found by content; returns the text and how many. */
export function redactContent(text: string): { text: string; secrets: number } {
  let secrets = 0;
  let out = text;
  for (const { name, re } of PATTERNS) {
    out = out.replace(re, (_match, keep: unknown) => {
      secrets++;
      const keeps = name === "secret" || name === "AWS secret";
      const prefix = keeps && typeof keep === "string" ? keep : "";
      return `${prefix}[REDACTED ${name}]`;
    });
  }
  return { text: out, secrets };
}

const FILE_HEADER = /^diff --git a\/(.+?) b\/(.+)$/;

/** Drops the sections of a unified diff whose file looks like a secret by its name. */
export function redactDiffFiles(diff: string): { text: string; files: string[] } {
  const lines = diff.split("\n");
  const out: string[] = [];
  const files: string[] = [];
  let skipping = false;
  for (const line of lines) {
    const header = FILE_HEADER.exec(line);
    if (header) {
      const path = header[2]!;
      skipping = isSecretPath(path) || isSecretPath(header[1]!);
      if (skipping) {
        files.push(path);
        out.push(line, `[REDACTED: "${path}" looks like a secret file; its changes are left out]`);
        continue;
      }
    }
    if (!skipping) out.push(line);
  }
  return { text: out.join("\n"), files };
}

/** Redacts a diff by file name, then its text by content. */
export function redactDiff(diff: string): Redaction {
  const byName = redactDiffFiles(diff);
  const byContent = redactContent(byName.text);
  return { text: byContent.text, files: byName.files, secrets: byContent.secrets };
}
