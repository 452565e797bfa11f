"""Discovery: recursive, skips tool folders and virtualenvs, globs, case selectors."""

from __future__ import annotations

from pathlib import Path

import pytest

from adk_eval_gate.inputs.discover import discover, misnamed_eval_files, split_selector
from adk_eval_gate.support.errors import UsageError


def _touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")


def test_recursive_and_skips(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _touch(
        repo,
        "a/one.test.json",
        "a/b/two.evalset.json",
        "a/other.json",
        ".git/x.test.json",
        "node_modules/p/x.test.json",
        ".adk/eval_history/x.evalset.json",
        "venv2/lib/x.test.json",
        ".venv/x.test.json",
        "a/__pycache__/x.test.json",
    )
    (repo / "venv2" / "pyvenv.cfg").write_text("home = /usr")
    monkeypatch.chdir(repo)
    found = [ref.display for ref in discover([], root=repo)]
    assert found == ["a/b/two.evalset.json", "a/one.test.json"]


def test_include_and_exclude(repo: Path) -> None:
    _touch(repo, "agents/x/smoke.test.json", "agents/x/full.evalset.json", "agents/y/full.evalset.json")
    include = discover([str(repo)], root=repo, include=["**/*.evalset.json"])
    assert [r.display for r in include] == ["agents/x/full.evalset.json", "agents/y/full.evalset.json"]
    exclude = discover([str(repo)], root=repo, exclude=["agents/y/**"])
    assert [r.display for r in exclude] == ["agents/x/full.evalset.json", "agents/x/smoke.test.json"]
    by_name = discover([str(repo)], root=repo, include=["smoke.*"])
    assert [r.display for r in by_name] == ["agents/x/smoke.test.json"]


def test_selectors(repo: Path) -> None:
    _touch(repo, "s.evalset.json")
    refs = discover([f"{repo}/s.evalset.json:a,b", f"{repo}/s.evalset.json:c"], root=repo)
    assert len(refs) == 1 and refs[0].case_ids == ("a", "b", "c")
    refs = discover([f"{repo}/s.evalset.json:a", f"{repo}/s.evalset.json"], root=repo)
    assert refs[0].case_ids == ()
    assert split_selector("C:/x/s.evalset.json:a") == ("C:/x/s.evalset.json", ("a",))
    assert split_selector("f.json:a,,b,") == ("f.json", ("a", "b"))


def test_explicit_file_of_any_name(repo: Path) -> None:
    _touch(repo, "weird.json")
    assert [r.display for r in discover([str(repo / "weird.json")], root=repo)] == ["weird.json"]


def test_errors(repo: Path) -> None:
    with pytest.raises(UsageError, match="does not exist"):
        discover([str(repo / "nope")], root=repo)
    with pytest.raises(UsageError, match="no eval files"):
        discover([str(repo)], root=repo)
    (repo / "d").mkdir()
    _touch(repo, "d/x.test.json")
    with pytest.raises(UsageError, match="is a folder"):
        discover([f"{repo}/d:case"], root=repo)


def test_the_tools_own_output_is_never_taken_for_a_misnamed_eval_file(tmp_path: Path) -> None:
    """Each run warned 'adk-eval-results/results.json looks like an eval file ... rename it'."""
    from tests.report.builders import case, document, metric

    (tmp_path / "agent").mkdir()
    results = document([case("paris", [metric("response_match_score", 0.9)])]).model_dump_json()
    out = tmp_path / "adk-eval-results"
    out.mkdir()
    (out / "results.json").write_text(results)
    (tmp_path / "agent" / "saved.json").write_text(results)  # a copy elsewhere: recognised by its content
    (tmp_path / "agent" / "weather_eval.json").write_text('{"eval_set_id": "w", "eval_cases": []}')
    found = misnamed_eval_files([str(tmp_path)], outputs=[out])
    assert found == [(tmp_path / "agent" / "weather_eval.json").as_posix()]
    assert misnamed_eval_files([str(tmp_path)]) == found
