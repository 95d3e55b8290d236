#!/bin/sh
# Installs the pitroom binary: curl -fsSL https://github.com/pitroom/pitroom/releases/latest/download/install.sh | sh
#
# Picks the asset of this OS and architecture from the latest release (or PITROOM_VERSION),
# checks it against the release's SHA256SUMS before anything is installed, and installs it to
# ~/.local/bin (or PITROOM_INSTALL_DIR) without sudo. A second run upgrades in place.
#
#   PITROOM_VERSION        a version to install (default: the latest release)
#   PITROOM_INSTALL_DIR    where to put the binary (default: ~/.local/bin)
#   PITROOM_DOWNLOAD_BASE  where releases live (default: the project's GitHub releases); assets
#                          are at <base>/v<version>/pitroom-<os>-<arch> beside SHA256SUMS, and,
#                          for a base of your own, the latest version is named in <base>/latest
set -eu

repo="pitroom/pitroom"
default_base="https://github.com/$repo/releases/download"
base="${PITROOM_DOWNLOAD_BASE:-$default_base}"
base="${base%/}"
dir="${PITROOM_INSTALL_DIR:-${HOME:?HOME is not set}/.local/bin}"

say() { printf '%s\n' "$*"; }
fail() {
  printf 'pitroom install: %s\n' "$1" >&2
  exit "${2:-1}"
}

fetch() { # URL FILE
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --proto '=https,http' -o "$2" "$1" || return 1
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1" || return 1
  else
    fail "neither curl nor wget is installed" 3
  fi
}

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) fail "no pitroom build for this system ($(uname -s)): build from source (see the README)" 3 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) fail "no pitroom build for this processor ($(uname -m)): build from source (see the README)" 3 ;;
esac

tmp="$(mktemp -d 2>/dev/null || mktemp -d -t pitroom)"
trap 'rm -rf "$tmp"' EXIT INT TERM

version="${PITROOM_VERSION:-}"
version="${version#v}"
if [ -z "$version" ]; then
  if [ "$base" = "$default_base" ]; then
    latest="https://github.com/$repo/releases/latest/download/VERSION"
  else
    latest="$base/latest"
  fi
  fetch "$latest" "$tmp/latest" || fail "cannot find the latest release at $latest"
  version="$(tr -d ' \t\r\n' <"$tmp/latest")"
  version="${version#v}"
fi
case "$version" in
  '' | *[!0-9A-Za-z.+-]*) fail "not a version: \"$version\"" 2 ;;
esac

asset="pitroom-$os-$arch"
say "pitroom $version for $os-$arch"
fetch "$base/v$version/SHA256SUMS" "$tmp/SHA256SUMS" || fail "cannot download $base/v$version/SHA256SUMS"
fetch "$base/v$version/$asset" "$tmp/$asset" || fail "cannot download $base/v$version/$asset"

want="$(awk -v a="$asset" '$2 == a || $2 == "*" a { print $1; exit }' "$tmp/SHA256SUMS")"
[ -n "$want" ] || fail "SHA256SUMS of $version has no line for $asset: nothing installed"
if command -v sha256sum >/dev/null 2>&1; then
  got="$(sha256sum "$tmp/$asset" | awk '{ print $1 }')"
elif command -v shasum >/dev/null 2>&1; then
  got="$(shasum -a 256 "$tmp/$asset" | awk '{ print $1 }')"
else
  fail "neither sha256sum nor shasum is installed: cannot check the download" 3
fi
[ "$got" = "$want" ] || fail "checksum mismatch for $asset (got $got, SHA256SUMS says $want): nothing installed"

mkdir -p "$dir" || fail "cannot create $dir (set PITROOM_INSTALL_DIR to a folder you can write)" 3
chmod 755 "$tmp/$asset"
# Into the folder under a name of this process, then renamed over the old binary: a running
# pitroom keeps its file, and two installs at once never rename a half-written copy.
cp "$tmp/$asset" "$dir/.pitroom.new.$$" || fail "cannot write to $dir" 3
mv -f "$dir/.pitroom.new.$$" "$dir/pitroom" || fail "cannot write to $dir" 3
say "installed $dir/pitroom"

case ":${PATH:-}:" in
  *":$dir:"*) ;;
  *) say "note: $dir is not on your PATH; add it, e.g. in your shell's profile: export PATH=\"$dir:\$PATH\"" ;;
esac
say "next:"
say "  pitroom doctor          # checks the worker CLIs and the sandbox"
say "  pitroom init            # proposes a config with free fallbacks"
say "  pitroom install --mcp   # registers the MCP server in your agents"
