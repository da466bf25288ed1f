#!/usr/bin/env bash
# Regenerate docs/sessions/reduce-session.txt: a real `porter session` on fixtures/reduce, the
# answers piped in (porter echoes each prompt and answer when stdin is not a terminal), quit
# half-way and resumed in a second process. Needs clang-22 for the verifier's compile.
#   docs/sessions/make_transcript.sh [PORTER]   (default: porter on PATH)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
porter=${1:-porter}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export COLUMNS=100 EDITOR="$here/editor.sh"
{
  echo "\$ porter session fixtures/reduce -o reduce-port"
  printf '%s\n' '?' a A a /undo a A A a '/explain WAVE002' a /status /quit |
    (cd "$repo" && "$porter" session fixtures/reduce -o "$work/reduce-port") || true
  run=$(ls "$work/reduce-port/.porter" >/dev/null && sqlite3 "$work/reduce-port/.porter/checkpoints.sqlite" \
        "SELECT thread_id FROM checkpoints LIMIT 1")
  echo
  echo "\$ porter session --resume $run reduce-port"
  printf '%s\n' e '?' a '/ask why 64 slots?' '/evidence reduce.cu' /quit |
    (cd "$repo" && "$porter" session --resume "$run" "$work/reduce-port") || true
} | sed -e "s|$work/||g" -e "s|$repo/||g" > "$here/reduce-session.txt"
