/**
 * Secret-looking files: what a read run should not see (`.env`, private keys, credential files).
 * Pure: given the paths of a snapshot and what git ignores, it names the ones to keep out.
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

/** True when a file's path looks like it holds a secret (by its name). */
export function isSecretPath(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (name.endsWith(".pub")) return false;
  return SECRET_NAMES.some((re) => re.test(name));
}

/** True when an ignored directory entry (`dir/`) looks like a folder of secrets. */
function isSecretDir(entry: string): boolean {
  const trimmed = entry.replace(/\/$/, "");
  return SECRET_DIRS.test(trimmed.slice(trimmed.lastIndexOf("/") + 1));
}

/**
 * The secret-looking files among a snapshot's files (to drop from a read view) and whether the
 * work tree holds any secret at all, ignored ones included (then read runs use a view).
 */
export function findSecrets(
  files: readonly string[],
  ignored: readonly string[],
): { tracked: string[]; any: boolean; examples: string[] } {
  const tracked = files.filter(isSecretPath);
  const hidden = ignored.filter((entry) =>
    entry.endsWith("/") ? isSecretDir(entry) : isSecretPath(entry)
  );
  const examples = [...tracked, ...hidden].slice(0, 3);
  return { tracked, any: tracked.length + hidden.length > 0, examples };
}
