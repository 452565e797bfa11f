#!/bin/bash
# The action's entrypoint: install the agent's dependencies when the `requirements` input asks for it, then
# hand over to the CLI. Without arguments inside Actions the CLI runs `run` with the step's inputs.
#
# bash, not sh: GitHub passes inputs as INPUT_<NAME> with the hyphens kept (INPUT_NUM-RUNS), and dash drops
# such variables from the environment of the programs it starts.
set -euo pipefail

cli_arguments=("$@")

command_data() {
  # text inside a workflow command: '%', CR and LF escaped, so it cannot end the command or start another
  local text=${1//'%'/'%25'}
  text=${text//$'\r'/'%0D'}
  printf '%s' "${text//$'\n'/'%0A'}"
}

fail_requirements() {
  # The CLI reports it as it reports its own inputs: one error line naming the input, exit code 2, and in a run
  # the results.json, job summary and comment that say what to fix (it escapes the text it prints).
  export ADK_EVAL_GATE_SETUP_ERROR="input 'requirements': $1"
  exec adk-eval-gate "${cli_arguments[@]}"
}

install_requirements() {
  local spec=$1
  local -a what
  if [[ $spec == pyproject ]]; then
    if [[ ! -f pyproject.toml && ! -f setup.py ]]; then
      fail_requirements "'pyproject' installs the repository, but $PWD has no pyproject.toml or setup.py (give a requirements file instead)"
    fi
    what=(.)
  elif [[ -f $spec ]]; then
    what=(--requirement "$spec")
  else
    fail_requirements "requirements file '$spec' does not exist (give a path relative to the repository root, or 'pyproject' to install the repository itself)"
  fi
  echo "::group::Installing the agent's dependencies from $(command_data "$spec")"
  local status=0
  python -m pip install --no-cache-dir --progress-bar off "${what[@]}" || status=$?
  echo "::endgroup::"
  if ((status != 0)); then
    fail_requirements "installing '$spec' failed: pip exited with $status (its output is in the group above)"
  fi
  if ! python -m pip check >/dev/null 2>&1; then
    echo "::warning::input 'requirements': '$spec' changed packages adk-eval-gate depends on; 'pip check' reports:"
    python -m pip check || true
  fi
}

requirements=${INPUT_REQUIREMENTS:-}
requirements=${requirements#"${requirements%%[![:space:]]*}"}
requirements=${requirements%"${requirements##*[![:space:]]}"}
if [[ $requirements == *$'\n'* || $requirements == *$'\r'* ]]; then
  fail_requirements "must be one line: a requirements file relative to the repository root, or 'pyproject'"
fi
if [[ -n $requirements ]]; then
  install_requirements "$requirements"
fi

exec adk-eval-gate "$@"
