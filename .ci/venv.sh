#!/usr/bin/env bash
# .venv with the project and the extras named (default: test), for .ci/test and .ci/run.
#
#   bash .ci/venv.sh [EXTRAS]      e.g. bash .ci/venv.sh test,lint,docs
#
# uv installs the ~200 packages of the test extra in about 15 s where pip takes a minute and a half; pip is the
# fallback. Neither compiles the ~20,000 modules (--no-compile: over a minute of CPU); the tests compile the few
# thousand they import, once. A .venv that has the extras from a pyproject.toml no newer than that is left as it
# is (.venv/.extras): .ci/run installs every extra first and runs the linters while .ci/test starts, and an install
# then would take the project out of .venv for a moment under them.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
extras=${1:-test}
IFS=, read -ra names <<<"$extras"
stamp=.venv/.extras

installed() { # every extra asked for is in the stamp, and pyproject.toml has not changed since
  [ -f "$stamp" ] && [ ! pyproject.toml -nt "$stamp" ] || return 1
  local extra
  for extra in "${names[@]}"; do grep -qx "$extra" "$stamp" || return 1; done
}
if installed; then exit 0; fi

python3 -m venv .venv || exit 1
if ! { .venv/bin/pip install -q --no-compile uv && .venv/bin/uv pip install -q --python .venv/bin/python -e ".[$extras]"; }; then
  printf '== uv could not install the %s extras: pip installs them\n' "$extras"
  .venv/bin/pip install --no-compile -e ".[$extras]" || exit 1
fi
{ [ -f "$stamp" ] && cat "$stamp"; printf '%s\n' "${names[@]}"; } | sort -u >"$stamp.new" && mv "$stamp.new" "$stamp"
