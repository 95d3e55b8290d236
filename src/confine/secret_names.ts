/**
 * What Pitroom treats as a secret, as data: file names that look like secrets in a tree (`.env`,
 * keys, credential files: the read view, the review's redaction and the sandbox's masks all read
 * this one list), the folders of secret-looking names, and the well-known credential files and
 * folders of a home folder (SSH, clouds, package registries, password stores, browser profiles),
 * which the sandbox hides from every worker. Pure; imports nothing.
 */

const SECRET_NAMES = [
  /^\.env$/,
  /^\.env\.(?!example$|sample$|template$|dist$|defaults$)[^/]+$/,
  /^\.envrc$/,
  /\.(pem|key|p12|pfx|jks|keystore|ppk|asc|gpg)$/i,
  /^id_(rsa|dsa|ecdsa|ed25519)$/,
  /^\.?(netrc|npmrc|pypirc|pgpass)$/,
  /^credentials(\.json|\.ya?ml|\.toml)?$/i,
  /^(client_)?secrets?(\.json|\.ya?ml|\.toml)$/i,
  /^service[-_]?account.*\.json$/i,
  /\.tfvars$/,
  /^\.dockerconfigjson$/,
];

const SECRET_DIRS = /^(\.ssh|\.aws|\.gnupg|\.docker|secrets?)$/;

/** The rules above as text: what a list of hidden files kept between runs was found by. */
export const SECRET_RULES: string = [...SECRET_NAMES, SECRET_DIRS].map(String).join("\n");

/**
 * The names above as one expression per set of flags (each matches where one of its patterns
 * does): a tree's 30,000 names are each tested twice instead of eleven times.
 */
const SECRET_NAME_GROUPS = [...new Set(SECRET_NAMES.map((re) => re.flags))].map((flags) =>
  new RegExp(
    SECRET_NAMES.filter((re) => re.flags === flags).map((re) => `(?:${re.source})`).join("|"),
    flags,
  )
);

/** True when a file's path looks like it holds a secret (by its name). */
export function isSecretPath(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (name.endsWith(".pub")) return false;
  return SECRET_NAME_GROUPS.some((re) => re.test(name));
}

/** True when a folder's path looks like a folder of secrets (`.ssh`, `secrets/`). */
export function isSecretDir(path: string): boolean {
  const trimmed = path.replace(/\/$/, "");
  return SECRET_DIRS.test(trimmed.slice(trimmed.lastIndexOf("/") + 1));
}

/**
 * Credential files and folders of a home folder, relative to it, hidden from every worker in the
 * sandbox (an empty folder over a folder, an empty file over a file). The worker CLIs' own login
 * files are listed per CLI (workers/logins.ts): each CLI sees its own and none of the others'.
 */
export const HOME_CREDENTIALS: readonly string[] = [
  // Keys and agents.
  ".ssh",
  ".gnupg",
  ".password-store",
  ".local/share/keyrings",
  ".config/sops",
  ".config/op",
  // Git and forges.
  ".git-credentials",
  ".config/git/credentials",
  ".netrc",
  ".config/gh",
  ".config/hub",
  ".config/glab-cli",
  ".config/github-copilot",
  // Package registries and containers.
  ".npmrc",
  ".pypirc",
  ".gem/credentials",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".docker/config.json",
  ".m2/settings-security.xml",
  // Clouds and their CLIs.
  ".aws",
  ".azure",
  ".oci",
  ".config/gcloud",
  ".kube",
  ".config/doctl",
  ".config/hcloud",
  ".config/rclone",
  ".terraform.d/credentials.tfrc.json",
  ".vault-token",
  ".s3cfg",
  ".boto",
  // Databases.
  ".pgpass",
  ".my.cnf",
  // A dotenv in the home folder (gemini reads it for its key: workers/logins.ts).
  ".env",
  // Browser profiles (cookies, saved passwords) and mail.
  ".mozilla",
  ".thunderbird",
  ".config/google-chrome",
  ".config/chromium",
  ".config/BraveSoftware",
  ".config/microsoft-edge",
  ".config/vivaldi",
  ".config/opera",
  "snap/firefox",
  "snap/chromium",
];
