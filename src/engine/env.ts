/**
 * The environment a worker starts from: the caller's, without Pitroom's own settings and without
 * variables that carry secrets the worker does not need.
 */

const DROP_PREFIXES = ["PITROOM_"];
const DROP_NAMES = new Set([
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "NPM_TOKEN",
  "NODE_AUTH_TOKEN",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "DOCKER_PASSWORD",
  "TWINE_PASSWORD",
  "CARGO_REGISTRY_TOKEN",
  "GIT_ASKPASS",
  "SSH_AUTH_SOCK",
  "GIT_INDEX_FILE",
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
]);

/** Returns a copy of `env` without Pitroom's variables and known secrets. */
export function scrubEnv(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (DROP_NAMES.has(name)) continue;
    if (DROP_PREFIXES.some((p) => name.startsWith(p))) continue;
    out[name] = value;
  }
  return out;
}
