#!/bin/bash
# What git itself needs for a fresh-index snapshot, with no Pitroom code: interleaved rounds of
# `git status --porcelain` against `git add -A` on a copy of the user's index then
# `git write-tree` (objects into a scratch store; round 1, which fills it, is left out).
#
#   bash benchmarks/tree/git_floor.sh [REPO] [ROUNDS]
#
# REPO defaults to /tmp/perf-bench/repo (made by `deno task bench:tree --repo /tmp/perf-bench/repo`).
set -euo pipefail
repo="${1:-/tmp/perf-bench/repo}"
rounds="${2:-15}"
cd "$repo" || exit 2
home="$(mktemp -d)"
obj="$(mktemp -d)"
idx="$(mktemp -d)"
trap 'rm -rf "$home" "$obj" "$idx"' EXIT
export HOME="$home" GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
us() { echo $(($(date +%s%N) / 1000)); }
rows=""
for ((round = 1; round <= rounds; round++)); do
  s=$(us); git status --porcelain >/dev/null; e=$(us); status=$((e - s))
  cp -p .git/index "$idx/index"
  export GIT_INDEX_FILE="$idx/index" GIT_OBJECT_DIRECTORY="$obj" GIT_ALTERNATE_OBJECT_DIRECTORIES="$PWD/.git/objects"
  s=$(us); git add -A; m=$(us); git write-tree >/dev/null; e=$(us)
  unset GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
  if ((round > 1)); then rows+="$status $((m - s)) $((e - m)) $((e - s))"$'\n'; fi
done
med() { printf '%s' "$rows" | awk -v c="$1" '{print $c}' | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'; }
st=$(med 1); add=$(med 2); wt=$(med 3); both=$(med 4)
echo "git $(git --version | cut -d' ' -f3), $((rounds - 1)) rounds, medians: status $st ms, add -A $add ms, write-tree $wt ms, both $both ms: $(awk -v b="$both" -v s="$st" 'BEGIN {printf "%.2f", b / s}')x status"
