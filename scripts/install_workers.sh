#!/usr/bin/env bash
# Installs the pinned worker CLIs into .tools/workers/ (git ignores it) from the npm registry.
# Kilo is pinned to 7.7.7, not the newest 7.8.1: the registry mirror the project's machines use
# lacks 7.8.1's platform package (@kilocode/cli-linux-x64@7.8.1). Crush (@charmland/crush) is not
# installed: its package downloads the binary from github.com at install time, which those machines
# cannot reach (its backend is untested: README, "Workers").
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/.tools/workers"
mkdir -p "$dir"
cat > "$dir/package.json" <<'JSON'
{
  "name": "pitroom-workers",
  "private": true,
  "dependencies": {
    "opencode-ai": "1.18.33",
    "@openai/codex": "0.169.0",
    "@anthropic-ai/claude-code": "2.1.328",
    "@google/gemini-cli": "0.61.0",
    "@qwen-code/qwen-code": "0.24.4",
    "@kilocode/cli": "7.7.7",
    "@github/copilot": "1.0.102"
  }
}
JSON
ok=1
for pair in opencode:1.18.33 codex:0.169.0 claude:2.1.328 gemini:0.61.0 qwen:0.24.4 kilo:7.7.7 copilot:1.0.102; do
  bin="${pair%%:*}" version="${pair#*:}"
  out="$("$dir/node_modules/.bin/$bin" --version </dev/null 2>/dev/null || true)"
  [[ "$out" == *"$version"* ]] || ok=0
done
if [[ $ok == 0 ]]; then
  echo "installing worker CLIs into .tools/workers/ (opencode, codex, claude, gemini, qwen, kilo, copilot)" >&2
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >&2)
fi
for bin in opencode codex claude gemini qwen kilo copilot; do
  printf '  %-9s %s\n' "$bin" "$("$dir/node_modules/.bin/$bin" --version </dev/null 2>/dev/null | head -n1)" >&2
done
