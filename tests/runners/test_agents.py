"""Importing agents as ``adk eval`` does."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from adk_eval_gate.inputs.agent_sources import parse_agent_value
from adk_eval_gate.runners.agents import AgentError, load_agent
from tests.runners.scripted import write_agent

APP_AGENT = """
from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from tests.runners.scripted_model import EchoModel

inner = LlmAgent(name="inner", model=EchoModel(model="echo"))
root_agent = LlmAgent(name="not_this_one", model=EchoModel(model="echo"))
app = App(name="wrapped", root_agent=inner)
"""

FACTORY_AGENT = """
import os
from google.adk.agents import LlmAgent
from tests.runners.scripted_model import EchoModel

async def get_agent_async():
    return LlmAgent(name="made_" + os.environ.get("AGENT_SUFFIX", "none"), model=EchoModel(model="echo")), None
"""


def test_an_app_named_app_wins_then_get_agent_async_with_the_env_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_agent(tmp_path / "app_agent", APP_AGENT)
    loaded = asyncio.run(
        load_agent(parse_agent_value(str(tmp_path / "app_agent"), root=tmp_path, field="--agent"), root=tmp_path)
    )
    assert loaded.app is not None and loaded.root_agent.name == "inner"

    write_agent(tmp_path / "factory_agent", FACTORY_AGENT)
    (tmp_path / "factory_agent" / ".env").write_text("AGENT_SUFFIX=from_dotenv\n", encoding="utf-8")
    monkeypatch.delenv("AGENT_SUFFIX", raising=False)
    try:
        loaded = asyncio.run(
            load_agent(
                parse_agent_value(str(tmp_path / "factory_agent"), root=tmp_path, field="--agent"), root=tmp_path
            )
        )
        assert loaded.app is None and loaded.root_agent.name == "made_from_dotenv"
    finally:
        os.environ.pop("AGENT_SUFFIX", None)


def test_two_agent_folders_with_the_same_name_are_both_imported(tmp_path: Path) -> None:
    for side in ("left", "right"):
        write_agent(tmp_path / side / "twin", APP_AGENT.replace('name="inner"', f'name="{side}"'))
    names = [
        asyncio.run(
            load_agent(parse_agent_value(str(tmp_path / side / "twin"), root=tmp_path, field="--agent"), root=tmp_path)
        ).root_agent.name
        for side in ("left", "right")
    ]
    assert names == ["left", "right"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "import not_a_real_module_xyz\n",
            "ModuleNotFoundError: No module named 'not_a_real_module_xyz' (bad/agent.py:1)",
        ),
        ("x = (\n", "SyntaxError"),
        ("raise RuntimeError('needs a database')\n", "RuntimeError: needs a database (bad/agent.py:1)"),
        ("value = 1\n", "agent bad defines no root_agent, get_agent_async() or App named app"),
    ],
)
def test_an_agent_that_does_not_import_gives_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, expected: str
) -> None:
    monkeypatch.chdir(tmp_path)
    write_agent(tmp_path / "bad", source)
    with pytest.raises(AgentError) as raised:
        asyncio.run(load_agent(parse_agent_value("bad", root=tmp_path, field="--agent"), root=tmp_path))
    line = raised.value.one_line()
    assert expected in line and "\n" not in line


def test_a_package_whose_init_does_not_import_agent_gets_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_agent(tmp_path / "quiet")
    (tmp_path / "quiet" / "__init__.py").write_text("")  # ADK's template has 'from . import agent' here
    with pytest.raises(AgentError) as raised:
        asyncio.run(load_agent(parse_agent_value("quiet", root=tmp_path, field="--agent"), root=tmp_path))
    line = raised.value.one_line()
    assert "has an agent.py that its __init__.py does not import" in line
    assert "add 'from . import agent' to quiet/__init__.py" in line
