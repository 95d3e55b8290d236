#!/bin/sh
# The plugins' PostToolUse hook (Claude Code, Codex): `pitroom hook-card` shows one card per run
# and phase after a Pitroom command. Silent inside a Pitroom worker and without `pitroom` on PATH.
[ -n "${PITROOM_INSIDE_RUN:-}" ] && exit 0
command -v pitroom >/dev/null 2>&1 || exit 0
exec pitroom hook-card
