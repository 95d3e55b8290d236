/**
 * `"network": "isolated"`: the worker in a network namespace of its own, connected to the outside
 * by pasta (Debian `passt`), so that it keeps the internet but cannot reach what listens on the
 * host's loopback (Pitroom's MCP server and dashboard, databases, dev servers), except the
 * loopback ports its own configuration names (a local model server, Ollama's 11434), which pasta
 * forwards to the host's loopback (`-T`). Two ways, both pure argv here:
 * - as a user (the usual case): pasta makes the user and network namespaces and starts bubblewrap
 *   in them; bubblewrap maps the user back to their own id (`--unshare-user --uid --gid`);
 * - as root, where pasta will not map users: a small shell script starts a process in a new
 *   network namespace (`unshare --net`) that says its pid on a FIFO in a folder of the attempt and
 *   waits; the script attaches pasta to that namespace (handed over as an open file,
 *   `/proc/self/fd/6`, since pasta may not open another process's), waits for pasta's pid on
 *   another FIFO (written once the namespace is configured), and only then lets the process
 *   become bubblewrap. When pasta cannot attach, the worker never starts: the script ends the
 *   waiting process and exits 125 with pasta's reason.
 * Either way pasta ends with the worker, and everything with Pitroom: each process starts through
 * `setpriv --pdeathsig KILL` where there is setpriv (bubblewrap keeps it across its exec, and its
 * `--die-with-parent` ends the sandbox with it).
 */

/** Exit code of the wrapper when the network could not be set up. */
export const NETWORK_SETUP_FAILED = 125;

/** Ollama's default port: forwarded whether or not the configuration names it. */
export const OLLAMA_PORT = 11434;

const LOOPBACK_URL =
  /(?:base_?url|baseurl|endpoint|api_?base|api_?url|host)["']?\s*[:=]\s*["']?(https?):\/\/(?:127(?:\.\d{1,3}){3}|localhost|\[::1\])(?::(\d{1,5}))?/gi;

/**
 * The loopback ports that texts (environment values, config files) name as a base URL or host:
 * `baseURL`, `base_url`, `*_BASE_URL`, `endpoint`, `OLLAMA_HOST` and the like (pure).
 */
export function loopbackPorts(texts: readonly string[]): number[] {
  const ports = new Set<number>([OLLAMA_PORT]);
  for (const text of texts) {
    for (const m of text.matchAll(LOOPBACK_URL)) {
      const port = m[2] === undefined ? (m[1]!.toLowerCase() === "https" ? 443 : 80) : Number(m[2]);
      if (port > 0 && port < 65536) ports.add(port);
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/** The environment as texts `loopbackPorts` reads: `NAME=value` lines. */
export function envTexts(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).map(([name, value]) => `${name}=${value}`);
}

const SCRIPT = `set -u
dir=$1 pasta=$2 options=$3 runas=$4 pdeath=$5
shift 5
rm -f "$dir/ns" "$dir/go" "$dir/ready"
mkfifo -m 600 "$dir/ns" "$dir/go" "$dir/ready" || exit ${NETWORK_SETUP_FAILED}
# Every helper ends with this script, and this script with Pitroom: each starts through setpriv,
# as a plain command (a function or a subshell in between would be the parent it dies with).
# The sandbox's network namespace comes first: its first process says its pid, waits for the
# go, and becomes bubblewrap. Around it, a writer on the FIFO wakes the read below if it fails.
# shellcheck disable=SC2016 # expanded by the sh that runs it
inner='echo $$ >"$0/ns"; read -r _ <"$0/go"; exec "$@"'
# shellcheck disable=SC2016
outer='d=$0; "$@"; c=$?; : 1<>"$d/ns"; exit $c'
set -- unshare --net -- sh -c "$inner" "$dir" "$@"
[ "$pdeath" = "" ] || set -- "$pdeath" --pdeathsig KILL -- "$@"
set -- sh -c "$outer" "$dir" "$@"
[ "$pdeath" = "" ] || set -- "$pdeath" --pdeathsig KILL -- "$@"
exec 5<&0
"$@" <&5 5<&- &
sandbox=$!
exec 5<&-
read -r pid <"$dir/ns" || pid=
if [ -z "$pid" ]; then wait "$sandbox"; exit ${NETWORK_SETUP_FAILED}; fi
# shellcheck disable=SC2086 # the options are words without spaces
set -- "$pasta" $options --pid "$dir/ready" --netns /proc/self/fd/6
[ "$runas" = "" ] || set -- "$@" --runas "$runas"
[ "$pdeath" = "" ] || set -- "$pdeath" --pdeathsig KILL -- "$@"
# shellcheck disable=SC2016
watch='p=$0 d=$1; shift; "$@" 6<"/proc/$p/ns/net" 2>"$d/pasta.err" </dev/null >/dev/null; : 1<>"$d/ready"'
set -- sh -c "$watch" "$pid" "$dir" "$@"
[ "$pdeath" = "" ] || set -- "$pdeath" --pdeathsig KILL -- "$@"
"$@" &
read -r net <"$dir/ready" || net=
if [ -z "$net" ]; then
  echo "pitroom: the worker's network could not be set up: $(grep -v syslog "$dir/pasta.err" | tail -n 2 | tr '\\n' ' ')" >&2
  kill -KILL "$pid" 2>/dev/null
  wait "$sandbox"
  exit ${NETWORK_SETUP_FAILED}
fi
printf x >"$dir/go"
wait "$sandbox"
code=$?
kill "$net" 2>/dev/null
exit $code
`;

/** What the network wrapper needs. */
export interface NetworkWrap {
  /** A folder of the attempt for the FIFOs (root only; made by the caller). */
  dir: string;
  /** Loopback ports forwarded to the host (Ollama's always among them). */
  ports: readonly number[];
  /** pasta's path. */
  pasta: string;
  /** setpriv's path, when there is one (ends pasta with the script). */
  setpriv: string | null;
  /** Pitroom runs as root: the script attaches pasta (which keeps the user, `--runas 0`). */
  asRoot: boolean;
}

/**
 * bubblewrap's own options of an isolated network (before its mounts): none as root (it starts
 * in the namespace the script made); as a user, a user namespace that maps the user back to
 * their own ids inside pasta's (where they are root).
 */
export function networkBwrapOptions(who: { asRoot: boolean; uid: number; gid: number }): string[] {
  return who.asRoot ? [] : ["--unshare-user", "--uid", String(who.uid), "--gid", String(who.gid)];
}

function pastaOptions(ports: readonly number[]): string[] {
  return [
    "--config-net",
    "--quiet",
    "--stderr",
    "--foreground",
    "--no-map-gw",
    "-4",
    "-t",
    "none",
    "-u",
    "none",
    "-U",
    "none",
    "-T",
    ports.length === 0 ? "none" : ports.join(","),
  ];
}

/**
 * The argv that runs `bwrap` (built with `networkBwrapOptions`) in a network of its own (pure).
 */
export function networkArgv(bwrap: readonly string[], wrap: NetworkWrap): string[] {
  if (!wrap.asRoot) {
    const pasta = [wrap.pasta, ...pastaOptions(wrap.ports), "--", ...bwrap];
    return wrap.setpriv === null ? pasta : [wrap.setpriv, "--pdeathsig", "KILL", "--", ...pasta];
  }
  return [
    ...(wrap.setpriv === null ? [] : [wrap.setpriv, "--pdeathsig", "KILL", "--"]),
    "sh",
    "-c",
    SCRIPT,
    "pitroom-network",
    wrap.dir,
    wrap.pasta,
    pastaOptions(wrap.ports).join(" "),
    wrap.asRoot ? "0" : "",
    wrap.setpriv ?? "",
    ...bwrap,
  ];
}
