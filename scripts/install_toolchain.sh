#!/usr/bin/env bash
# Installs what Pitroom's development needs into the checkout, from the npm registry:
# Deno 2.9.6 in .tools/, the pinned worker CLIs in .tools/workers/, ripgrep, bubblewrap and pasta
# where missing.
# Safe to run again: it only installs what is missing or at the wrong version.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

DENO_VERSION=2.9.6
tools="$root/.tools"
mkdir -p "$tools"

have_deno="$("$tools/node_modules/.bin/deno" --version 2>/dev/null | head -n1 || true)"
if [[ "$have_deno" != "deno $DENO_VERSION "* ]]; then
  echo "installing deno $DENO_VERSION into .tools/" >&2
  npm install --prefix "$tools" --no-audit --no-fund --loglevel=error "deno@$DENO_VERSION" >&2
fi

bash "$root/scripts/install_workers.sh"

if ! command -v rg >/dev/null 2>&1; then
  echo "installing ripgrep (opencode's grep and glob tools need rg)" >&2
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq >&2 && apt-get install -y -qq ripgrep >&2
  else
    echo "ripgrep is missing: install it with your package manager (apt install ripgrep)" >&2
    exit 3
  fi
fi

if ! command -v bwrap >/dev/null 2>&1; then
  echo "installing bubblewrap (every worker runs in its sandbox; the tests check it)" >&2
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq >&2 && apt-get install -y -qq bubblewrap >&2
  else
    echo "bubblewrap is missing: install it with your package manager (apt install bubblewrap)" >&2
    exit 3
  fi
fi

if ! command -v pasta >/dev/null 2>&1; then
  echo "installing pasta (Debian passt: the sandbox's isolated network, \"network\": \"isolated\")" >&2
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq >&2 && apt-get install -y -qq passt >&2
  else
    echo "pasta is missing: install it with your package manager (apt install passt)" >&2
    exit 3
  fi
fi

# socat: Claude Code's own sandbox needs it; only the test of that sandbox outside Pitroom's does.
if ! command -v socat >/dev/null 2>&1 && [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "installing socat (for the test of Claude Code's own sandbox)" >&2
  apt-get install -y -qq socat >&2 || echo "socat not installed: that test is skipped" >&2
fi

# The dashboard's browser tests (chromium), the install script's lint (shellcheck) and the shell
# completions' tests (zsh, fish): Debian packages, installed when we are root with apt.
missing=()
for pkg in chromium shellcheck zsh fish ruby; do command -v "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
if ((${#missing[@]})) && [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} (browser, shellcheck, completion and Homebrew formula tests)" >&2
  apt-get update -qq >&2 && apt-get install -y -qq "${missing[@]}" >&2
elif ((${#missing[@]})); then
  echo "not installed: ${missing[*]} (the tests that need them are skipped): apt install ${missing[*]}" >&2
fi

# Remote hosts' tests: a real OpenSSH server (sshd on 127.0.0.1) and podman for container hosts.
hosts=()
[[ -x /usr/sbin/sshd ]] || hosts+=(openssh-server)
command -v podman >/dev/null 2>&1 || hosts+=(podman)
if ((${#hosts[@]})) && [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${hosts[*]} (SSH and container host tests)" >&2
  apt-get update -qq >&2 && apt-get install -y -qq "${hosts[@]}" >&2
elif ((${#hosts[@]})); then
  echo "not installed: ${hosts[*]} (the host tests that need them are skipped): apt install ${hosts[*]}" >&2
fi

export DENO_DIR="${DENO_DIR:-$root/.deno}"
"$tools/node_modules/.bin/deno" install --frozen --quiet >&2
# `deno bundle` fetches its bundler from the npm registry on first use: fetch it now, so the
# bundle (and the test that runs it) work offline afterwards. The dashboard page is built first:
# the program embeds it (ui/dist/, not in git).
"$tools/node_modules/.bin/deno" run -P=pitroom --quiet scripts/build_ui.ts >&2
warm="$(mktemp -d)"
"$tools/node_modules/.bin/deno" bundle --quiet --platform deno --code-splitting --outdir "$warm" main.ts >&2
rm -rf "$warm"
# The MCP Inspector (a client nobody here wrote) drives `pitroom mcp` in the tests: cache it now,
# so tests/server/mcp/inspector_test.ts runs offline.
"$tools/node_modules/.bin/deno" cache --quiet --no-config --no-lock npm:@modelcontextprotocol/inspector@2.12.0 >&2
echo "toolchain ready: $("$tools/node_modules/.bin/deno" --version | head -n1)" >&2
