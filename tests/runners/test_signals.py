"""Ctrl-C (SIGINT) and SIGTERM stop a run cleanly: running cases are cancelled, the reports hold what finished."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runners.scripted import AgentSignals, turn, write_agent, write_config, write_evalset

pytestmark = pytest.mark.slow  # a subprocess run stopped by signals


@pytest.mark.timeout(180)  # a guard: the cases that hang would hold the test for an hour
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_run_and_writes_what_finished(tmp_path: Path, signum: int, code: int) -> None:
    (tmp_path / ".git").mkdir()
    write_agent(tmp_path / "bot")
    write_config(tmp_path / "bot", {"response_match_score": 0.5})
    cases = {"fast1": [turn("hi", answer="echo: hi")], "fast2": [turn("ho", answer="echo: ho")]}
    cases.update({f"hang{i}": [turn("hang", answer="never")] for i in range(3)})
    write_evalset(tmp_path / "bot" / "sig.evalset.json", cases)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    seen: list[str] = []
    with AgentSignals() as hanging:
        process = subprocess.Popen(
            [sys.executable, "-m", "adk_eval_gate", "run", "bot", "--parallelism", "2", "--output-dir", "out"],
            cwd=tmp_path,
            env={**env, **hanging.env},
            pass_fds=hanging.pass_fds,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        hanging.handed_over()
        assert process.stdout is not None
        try:
            while sum("ran bot/sig.evalset.json::fast" in line for line in seen) < 2:
                line = process.stdout.readline()
                assert line, "".join(seen)  # the run ended before the fast cases were done
                seen.append(line)
            hanging.wait(2)  # both slots are taken by a hanging case run now
            process.send_signal(signum)
            rest, _ = process.communicate(timeout=60)
        finally:
            process.kill()  # whatever failed above: the hanging cases never end by themselves
    output = "".join(seen) + rest
    assert process.returncode == code, output
    assert f"Stopped by {signal.Signals(signum).name} after" in output
    assert "Interrupted: the reports hold the 2 finished runs" in output
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert doc["run"]["interrupted"] is True
    assert doc["status"] == "error"  # a run cut short never passes, even if what finished passed
    assert sorted(case["eval_id"] for case in doc["cases"]) == ["fast1", "fast2"]
    assert (tmp_path / "out" / "junit.xml").is_file() and (tmp_path / "out" / "summary.md").is_file()
    assert "Traceback" not in output
