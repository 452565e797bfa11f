#!/usr/bin/env bash
# Container test: build the action's image and run it the way GitHub's runner runs a Docker action (workspace
# mounted, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and GITHUB_EVENT_PATH set, every input as INPUT_<NAME>) on the
# offline example agent, against a local fake GitHub REST API on 127.0.0.1; then check the exit code, outputs,
# job summary, JUnit file and pull-request comment (tests/action/container_check.py), and that a bad
# `requirements` input stops the step with one clear error; then `runner: a2a` against ADK's A2A server of the
# example on 127.0.0.1 (tests/action/a2a_server.py), which must give what the in-process step gave and never
# show the agent-headers token (tests/action/container_a2a_check.py). Also enforces the image size budget, and
# that the a2a extra imports and `pip check` passes in the image.
#
#   bash .ci/container-test.sh [VENV]    VENV: a virtualenv with the test extra, for the fake GitHub server and
#                                       the checks (default: $PYTHON, else .venv, else python3)
#   bash .ci/container-test.sh --build-only        only build the image and check its size (needs no VENV)
#   bash .ci/container-test.sh --built [VENV]      only test the image a --build-only built (.ci/run builds it
#                                                  while the tests run)
#
# Environment:
#   CONTAINER_ENGINE  oci (default: podman through the oci tool, for machines without Docker) or docker (GitHub's
#               runners: builds on the real python:3.11-slim and runs the container as the runner does)
#   OCI_TOOL    the oci tool (default: shared/tools/oci beside this checkout or one of its parents, else oci on
#               PATH); it installs podman itself
#   PYTHON      a Python with this project's test extra, when no VENV is given
#   IMAGE_TAG   default localhost/adk-eval-gate:ci
#   MAX_ADDED_MB  budget for what the Dockerfile adds on top of its base image (default 300)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
engine=${CONTAINER_ENGINE:-oci}
find_oci() {  # the oci tool: $OCI_TOOL, else shared/tools/oci beside this checkout or an ancestor, else PATH
  if [[ -n ${OCI_TOOL:-} ]]; then echo "$OCI_TOOL"; return; fi
  local dir=$root
  while [[ $dir != / ]]; do
    dir=$(dirname "$dir")
    if [[ -x $dir/shared/tools/oci ]]; then echo "$dir/shared/tools/oci"; return; fi
  done
  command -v oci || echo "$root/../shared/tools/oci"
}
oci=$(find_oci)
phase=all
case ${1:-} in
  --build-only) phase="build" && shift ;;
  --built) phase="test" && shift ;;
esac
tag=${IMAGE_TAG:-localhost/adk-eval-gate:ci}
max_added_mb=${MAX_ADDED_MB:-300}
if [[ -n ${1:-} && ${1:-} != --run-image ]]; then
  PYTHON=$(cd "$1/bin" && pwd)/python
elif [[ -z ${PYTHON:-} ]]; then
  if [[ -x $root/.venv/bin/python ]]; then PYTHON=$root/.venv/bin/python; else PYTHON=python3; fi
fi
work=$root/.ci/.work/container
server_pid=
a2a_pid=

case $engine in
  oci) [[ -x $oci ]] || { echo "container test: the oci tool is not at $oci (set OCI_TOOL)" >&2; exit 1; } ;;
  docker) command -v docker >/dev/null || { echo "container test: docker is not installed" >&2; exit 1; } ;;
  *) echo "container test: CONTAINER_ENGINE must be oci or docker, not $engine" >&2; exit 1 ;;
esac
base_image=docker.io/library/python:3.11-slim

image_build() {
  if [[ $engine == oci ]]; then
    "$oci" build . "$tag"
  else
    docker image inspect "$base_image" >/dev/null 2>&1 || docker pull -q "$base_image" >/dev/null
    docker build -t "$tag" .
  fi
}

image_python() { # ARGS: the image's Python, without the action's entrypoint
  if [[ $engine == oci ]]; then
    "$oci" podman run --rm --entrypoint python "$tag" "$@"
  else
    docker run --rm --entrypoint python "$tag" "$@"
  fi
}

image_size() {
  if [[ $engine == oci ]]; then "$oci" size "$1"; else docker image inspect --format '{{.Size}}' "$1"; fi
}

image_run() { # run the image in the current folder as GitHub's runner runs a Docker action (what oci run does)
  if [[ $engine == oci ]]; then
    "$oci" run "$tag"
    return
  fi
  # no --rm: the exit code must be the container's (podman's Docker API answers 0 for --rm containers)
  local cidfile status=0
  cidfile=$(mktemp -u)
  local -a args=(--cidfile "$cidfile" --network host --workdir /github/workspace -v "$PWD:/github/workspace")
  local var inside name
  for var in GITHUB_OUTPUT GITHUB_STEP_SUMMARY GITHUB_EVENT_PATH; do
    [[ -n ${!var:-} ]] || continue
    [[ -e ${!var} ]] || : >"${!var}"
    inside=/github/file_commands/${var,,}
    [[ $var == GITHUB_EVENT_PATH ]] && inside=/github/workflow/event.json
    args+=(-v "$(realpath "${!var}"):$inside" -e "$var=$inside")
  done
  while IFS='=' read -r name _; do
    case $name in
      GITHUB_OUTPUT | GITHUB_STEP_SUMMARY | GITHUB_EVENT_PATH | GITHUB_WORKSPACE) ;;
      GITHUB_* | INPUT_* | RUNNER_* | CI) args+=(-e "$name") ;;
    esac
  done < <(env)
  docker run "${args[@]}" -e GITHUB_WORKSPACE=/github/workspace "$tag" || status=$?
  if [[ -s $cidfile ]]; then docker rm -f "$(cat "$cidfile")" >/dev/null || true; fi
  rm -f "$cidfile"
  return "$status"
}

if [[ ${1:-} == --run-image ]]; then # internal: the step's environment holds names bash cannot export
  image_run
  exit
fi
cd "$root"

cleanup() {
  local pid
  for pid in $server_pid $a2a_pid; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT

if [[ $phase != test ]]; then
  echo "== building the image ($tag)"
  if [[ $engine == oci ]]; then
    # podman's vfs store keeps a full copy per layer: drop build stages left by earlier runs, keep today's cache
    "$oci" podman image prune -f --filter until=12h >/dev/null || true
  fi
  start=$SECONDS
  image_build
  echo "built in $((SECONDS - start)) s"

  base_bytes=$(image_size "$base_image")
  image_bytes=$(image_size "$tag")
  added_mb=$(((image_bytes - base_bytes) / 1000000))
  echo "image size: base $((base_bytes / 1000000)) MB, image $((image_bytes / 1000000)) MB, added by the Dockerfile ${added_mb} MB (budget ${max_added_mb} MB)"
  if ((added_mb >= max_added_mb)); then
    echo "container test FAILED: the Dockerfile adds ${added_mb} MB to its base image, over the ${max_added_mb} MB budget" >&2
    exit 1
  fi
fi
if [[ $phase == build ]]; then
  echo "image built: test it with bash .ci/container-test.sh --built"
  exit 0
fi

echo "== the image's packages: consistent, and the a2a extra's client imports"
image_python -m pip check
image_python -c 'import a2a.client, a2a.client.transports.jsonrpc, a2a.client.transports.rest; print("a2a-sdk imports")'

echo "== starting the fake GitHub API"
rm -rf "$work"
mkdir -p "$work"
"$PYTHON" -m tests.fakes.github_server --port-file "$work/port" --requests-log "$work/requests.jsonl" \
  --repository octo/weather --pull-request 7 &
server_pid=$!
for _ in $(seq 300); do
  [[ -s $work/port ]] && break
  kill -0 "$server_pid" 2>/dev/null || { echo "container test FAILED: the fake GitHub server did not start" >&2; exit 1; }
  sleep 0.1
done
[[ -s $work/port ]] || { echo "container test FAILED: the fake GitHub server wrote no port in 30 s" >&2; exit 1; }
api_url="http://127.0.0.1:$(cat "$work/port")"
echo "fake GitHub API at $api_url"

echo "== starting the weather example's A2A server (ADK's to_a2a)"
"$PYTHON" -m tests.action.a2a_server --port-file "$work/a2a-port" --requests-log "$work/a2a-requests.jsonl" &
a2a_pid=$!
for _ in $(seq 600); do
  [[ -s $work/a2a-port ]] && break
  kill -0 "$a2a_pid" 2>/dev/null || { echo "container test FAILED: the A2A server did not start" >&2; exit 1; }
  sleep 0.1
done
[[ -s $work/a2a-port ]] || { echo "container test FAILED: the A2A server wrote no port in 60 s" >&2; exit 1; }
agent_url="http://127.0.0.1:$(cat "$work/a2a-port")"
echo "A2A server at $agent_url"

"$PYTHON" -m tests.action.container_check prepare "$work" --api-url "$api_url" --agent-url "$agent_url"

run_step() { # SCENARIO: run the container with WORK/env-SCENARIO in the workspace; stdout to WORK/SCENARIO.out
  local scenario=$1 status=0 name
  local -a step_env inherited=()
  mapfile -t step_env <"$work/env-$scenario"
  while IFS='=' read -r name _; do # e.g. when this runs inside a GitHub job: only the scenario's context counts
    case $name in GITHUB_* | INPUT_* | RUNNER_* | ACTIONS_*) inherited+=(-u "$name") ;; esac
  done < <(env)
  echo "== running the step: $scenario"
  (cd "$work/workspace" && env "${inherited[@]}" "${step_env[@]}" bash "$root/.ci/container-test.sh" --run-image) \
    >"$work/$scenario.out" 2>"$work/$scenario.err" || status=$?
  sed 's/^/  | /' "$work/$scenario.out"
  if [[ -s $work/$scenario.err ]]; then sed 's/^/  ! /' "$work/$scenario.err"; fi
  return "$status"
}

status=0
run_step gate || status=$?
"$PYTHON" -m tests.action.container_check run "$work" --exit-code "$status"

# before bad-requirements, which writes its error results over the gate step's (the in-process run compared with)
status=0
run_step a2a || status=$?
"$PYTHON" -m tests.action.container_a2a_check "$work" --exit-code "$status"

status=0
run_step bad-requirements || status=$?
"$PYTHON" -m tests.action.container_check bad-input "$work" --exit-code "$status" --input requirements \
  --stdout "$work/bad-requirements.out"

echo "container test passed"
