#!/bin/sh
# The plugins' SessionStart hook (Claude Code, Codex): prints the using-pitroom skill, without its
# frontmatter, as the session's context. Prints nothing inside a Pitroom worker (the recursion
# marker PITROOM_INSIDE_RUN is set there) and nothing when `pitroom` is not on PATH.
[ -n "${PITROOM_INSIDE_RUN:-}" ] && exit 0
command -v pitroom >/dev/null 2>&1 || exit 0
skill="$(dirname "$0")/../../skills/using-pitroom/SKILL.md"
[ -r "$skill" ] || exit 0
echo "Pitroom is installed: you can hand tasks to worker agents. The using-pitroom skill:"
echo
sed '1,/^---$/d' "$skill"
