"""agents-cli manifests are the user's and untrusted: aliases that expand without end and nesting deeper than any
manifest needs are one line naming the file, never a hang or a traceback, and the other projects are still mapped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adk_eval_gate.inputs.agent_locator import AgentLocator, read_mappings
from adk_eval_gate.inputs.agent_sources import AgentChoice, NoAgent
from tests.runners.scripted import write_agent


def _alias_bomb(levels: int = 9) -> str:
    """Ten times more values at each level: 10**10 to whatever walks the result, in a dozen lines."""
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * 10) + "]" for n in range(1, levels + 1)]
    return "agent_directory: app\n" + "\n".join(lines) + "\n"


DEEP = "agent_directory: app\nnested: " + "[" * 200 + "]" * 200 + "\n"  # past the 120 levels allowed


def _project(folder: Path, manifest: str) -> Path:
    """A project with ``manifest``, its agent in ``app/``; the eval file under its ``tests/eval/``."""
    folder.mkdir(parents=True)
    (folder / "agents-cli-manifest.yaml").write_text(manifest, encoding="utf-8")
    write_agent(folder / "app")
    evalset = folder / "tests" / "eval" / "basic.evalset.json"
    evalset.parent.mkdir(parents=True)
    evalset.write_text('{"eval_set_id": "s", "eval_cases": []}', encoding="utf-8")
    return evalset


@pytest.mark.timeout(60)
def test_a_manifest_with_an_alias_bomb_or_deep_nesting_is_one_line_and_other_projects_are_mapped(
    tmp_path: Path,
) -> None:
    root = tmp_path.resolve()
    bomb = _project(root / "bomb", _alias_bomb())
    deep = _project(root / "deep", DEEP)
    good = _project(root / "good", 'agent_directory: "app"\ngenerated_at: 2026-11-20\n')  # a date: not read
    locator = AgentLocator(root=root, option=None, mappings=read_mappings([], root=root, field="--agent-map"))
    for evalset, name, problem in (
        (bomb, "bomb", "expands to more than 100,000 values"),
        (deep, "deep", "nested more than 120 levels deep"),
    ):
        found = locator.choose(evalset)
        assert isinstance(found, NoAgent), found
        assert found.origin == f"{name}/agents-cli-manifest.yaml"
        assert f"{name}/agents-cli-manifest.yaml cannot be used" in found.reason and problem in found.reason
        assert "\n" not in found.reason and "Traceback" not in found.reason
    chosen = locator.choose(good)
    assert isinstance(chosen, AgentChoice), chosen
    assert (chosen.ref.display, chosen.source) == ("good/app", "agent_directory of good/agents-cli-manifest.yaml")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.timeout(30)
def test_a_fifo_named_like_a_manifest_is_never_opened_for_reading(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    evalset = _project(root / "piped", "agent_directory: app\n")
    (root / "piped" / "agents-cli-manifest.yaml").unlink()
    os.mkfifo(root / "piped" / "agents-cli-manifest.yaml")
    locator = AgentLocator(root=root, option=None, mappings=read_mappings([], root=root, field="--agent-map"))
    found = locator.choose(evalset)
    assert isinstance(found, NoAgent), found
    assert found.reason.endswith("piped/agents-cli-manifest.yaml is a FIFO, not a regular file"), found.reason
