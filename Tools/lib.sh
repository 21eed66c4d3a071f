# What the scripts in Tools/ share. Source it first thing (it is not a command of its own):
#
#   source "$(dirname "$0")/lib.sh"
#
# It turns on bash's strict mode (set -euo pipefail) and moves to the repository's root, where every
# path a script names starts. Then:
#   arsim_binary                      sets and exports ARSIM, the arsim binary: $ARSIM when the caller
#                                     set it, else a release build of this checkout, built now
#                                     (SCRATCH_PATH, when set, is swift build's --scratch-path)
#   real_capture NAME                 prints the path of the real capture NAME in $shared_datasets
#                                     (record3d-dance: its .r3d file); says so on stderr and returns 1
#                                     when it is absent
#   import_capture NAME SOURCE DIR    `arsim import`s SOURCE into DIR unless DIR/session.json exists
#   choose_captures ARGS...           sets the array captures to ARGS, or to the script's array
#                                     defaults when there are none
#   usage_error MESSAGE               prints "usage: MESSAGE" on stderr and exits with status 2
# and the variables tool (the script's name without .sh, for messages), shared_datasets
# (../shared/datasets) and invocation (how to run the script again, for a generated table: ARSIM=...
# in front when the caller named the binary).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tool="$(basename "$0" .sh)"
shared_datasets=../shared/datasets
invocation="Tools/$tool.sh"
if [ -n "${ARSIM:-}" ]; then invocation="ARSIM=$ARSIM $invocation"; fi

arsim_binary() {
  if [ -z "${ARSIM:-}" ]; then
    local build=(swift build -c release ${SCRATCH_PATH:+--scratch-path "$SCRATCH_PATH"})
    "${build[@]}" --product arsim 2>&1 | tail -n 1 >&2
    ARSIM="$("${build[@]}" --show-bin-path)/arsim"
  fi
  export ARSIM
}

real_capture() {
  local src="$shared_datasets/$1"
  [ "$1" = record3d-dance ] && src="$src/dance.r3d"
  if [ ! -e "$src" ]; then
    echo "$tool: $src is absent" >&2
    return 1
  fi
  echo "$src"
}

import_capture() {
  if [ ! -e "$3/session.json" ]; then
    echo "$tool: importing $1" >&2
    "$ARSIM" import "$2" "$3" >/dev/null
  fi
}

choose_captures() {
  captures=("$@")
  if [ ${#captures[@]} -eq 0 ]; then captures=("${defaults[@]}"); fi
}

usage_error() {
  echo "usage: $1" >&2
  exit 2
}
