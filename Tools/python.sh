#!/usr/bin/env bash
# Runs a Python tool in the repository's own virtual environment (.venv, gitignored),
# creating it and installing Tools/requirements.txt (plus any extra requirement files
# named in ARSIM_EXTRA_REQUIREMENTS) on first use.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
  echo "tools: creating $venv" >&2
  python3 -m venv "$venv"
fi
stamp="$venv/.requirements"
want="$(cat "$root/Tools/requirements.txt" ${ARSIM_EXTRA_REQUIREMENTS:-} 2>/dev/null | sha1sum)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "tools: installing Python requirements" >&2
  "$venv/bin/pip" install -q -r "$root/Tools/requirements.txt" ${ARSIM_EXTRA_REQUIREMENTS:+-r $ARSIM_EXTRA_REQUIREMENTS} >&2
  echo "$want" > "$stamp"
fi
exec "$venv/bin/python" "$@"
