"""The fake GitHub server itself: its OpenAPI checks catch wrong requests and its command-line mode works."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from tests.fakes.github_server import FakeGitHub, iter_log

ROOT = Path(__file__).resolve().parents[2]
AUTH = {"Authorization": "Bearer ghs_test"}


def test_a_request_outside_the_description_is_a_violation() -> None:
    with FakeGitHub() as fake:
        answer = requests.post(f"{fake.url}/repos/octo/repo/issues/7/comments", json={"text": "x"}, headers=AUTH)
        assert answer.status_code == 422
        assert len(fake.violations) == 1
        assert "'body' is a required property" in fake.violations[0]
        assert fake.comments_on(7) == []


def test_answers_satisfy_the_description_and_paginate() -> None:
    with FakeGitHub() as fake:
        for number in range(5):
            fake.add_comment(f"comment {number}", login="someone")
        url = f"{fake.url}/repos/octo/repo/issues/7/comments?per_page=2"
        bodies = []
        while url:
            answer = requests.get(url, headers=AUTH, timeout=5)
            assert answer.status_code == 200
            bodies += [item["body"] for item in answer.json()]
            url = answer.links.get("next", {}).get("url")
        assert bodies == [f"comment {n}" for n in range(5)]
        fake.assert_clean()


@pytest.mark.slow
@pytest.mark.timeout(120)  # a guard: a server that never says it is ready would hold the test
def test_command_line_mode_serves_logs_and_stops_on_sigterm(tmp_path: Path) -> None:
    port_file, log = tmp_path / "port", tmp_path / "requests.jsonl"
    command = [sys.executable, "-m", "tests.fakes.github_server", "--port-file", str(port_file)]
    command += ["--requests-log", str(log), "--repository", "acme/agents", "--pull-request", "12"]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        ready = process.stdout.readline()  # printed once the port file is written
        api = f"http://127.0.0.1:{int(port_file.read_text())}"
        assert ready == f"listening on {api.removeprefix('http://')}\n"
        created = requests.post(
            f"{api}/repos/acme/agents/issues/12/comments", json={"body": "hello"}, headers=AUTH, timeout=5
        )
        assert created.status_code == 201
        assert created.json()["user"]["login"] == "github-actions[bot]"
        listed = requests.get(f"{api}/repos/acme/agents/issues/12/comments", headers=AUTH, timeout=5)
        assert [c["body"] for c in listed.json()] == ["hello"]
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    lines = list(iter_log(log))
    assert [(line["method"], line["path"], line["status"]) for line in lines] == [
        ("POST", "/repos/acme/agents/issues/12/comments", 201),
        ("GET", "/repos/acme/agents/issues/12/comments", 200),
    ]
    assert lines[0]["body"] == {"body": "hello"}
    assert all(line["violations"] == [] for line in lines)
    assert json.loads(log.read_text().splitlines()[0])["query"] == {}
