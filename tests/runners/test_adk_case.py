"""adk_case: what a process does once so that its case runs do no more than ADK's own work: the optional imports
ADK tries on every turn remembered when they fail (``MissingImports``), and ADK's telemetry made cheap only while
nothing can see it (``telemetry_exported``). The collector: tests/support/test_collector.py."""

from __future__ import annotations

import asyncio
import importlib
import importlib.abc
import importlib.machinery
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from adk_eval_gate.runners.adk_case import MISSING_IMPORTS, MissingImports, run_case, warm_up
from adk_eval_gate.runners.agents import AgentRef, LoadedAgent

ABSENT = "adk_eval_gate_tests_absent"  # a package nobody installed


class _Searches(importlib.abc.MetaPathFinder):
    """Counts the imports that reach the finders (those not in ``sys.modules``): each one searches sys.path."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        self.names.append(fullname)
        return None


@pytest.fixture
def missing() -> Iterator[MissingImports]:
    finder = MissingImports()
    yield finder
    if finder in sys.meta_path:
        sys.meta_path.remove(finder)


def _error_of(name: str) -> ImportError:
    with pytest.raises(ImportError) as raised:
        importlib.import_module(name)
    return raised.value


def test_a_module_that_fails_to_import_fails_again_at_once_with_the_same_error(
    missing: MissingImports, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "optional_feature"  # like google.adk.agents.remote_a2a_agent without the a2a package
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "remote.py").write_text(f"import {ABSENT}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    first = _error_of("optional_feature.remote")
    missing.learn(["optional_feature.remote", "json"])
    assert list(missing.failed) == ["optional_feature.remote"]  # what can be imported is imported, not remembered
    searches = _Searches()
    sys.meta_path.insert(1, searches)  # right behind MissingImports
    try:
        again = _error_of("optional_feature.remote")
        _error_of(f"{ABSENT}_too")  # anything else is searched as before
    finally:
        sys.meta_path.remove(searches)
        sys.modules.pop("optional_feature", None)
    assert type(again) is ModuleNotFoundError and str(again) == str(first) == f"No module named '{ABSENT}'"
    assert again.name == first.name == ABSENT
    assert searches.names == [f"{ABSENT}_too"]
    assert missing.failed["optional_feature.remote"] == (str(first), ABSENT, None)  # no traceback, no frames


def test_nothing_is_remembered_when_every_import_works(missing: MissingImports) -> None:
    missing.learn(["json", "json"])
    assert missing.failed == {} and missing not in sys.meta_path


@pytest.mark.slow  # a real ADK agent
def test_after_the_warm_up_a_turn_imports_nothing() -> None:
    from google.genai import types as genai_types

    from adk_eval_gate.model.evalset import EvalCase, Invocation
    from adk_eval_gate.runners.adk_plugins import warm_up_agent
    from adk_eval_gate.runners.simulation import StaticTurns

    asyncio.run(warm_up())
    agent = LoadedAgent(AgentRef("module", "turn", "turn"), warm_up_agent(), None)
    message = genai_types.Content(role="user", parts=[genai_types.Part(text="hello")])
    case = EvalCase(eval_id="turn", conversation=[Invocation(user_content=message)])
    searches = _Searches()
    sys.meta_path.insert(sys.meta_path.index(MISSING_IMPORTS) + 1 if MISSING_IMPORTS in sys.meta_path else 0, searches)
    try:
        done = asyncio.run(
            run_case(agent, case=case, turns=StaticTurns(case), app_name="a", user_id="u", session_id="s")
        )
    finally:
        sys.meta_path.remove(searches)
    assert len(done.events) > 2  # the user's message, the tool call and its response, the answer
    assert searches.names == []  # ADK's per-turn import of remote_a2a_agent (no a2a package) fails at once


# A fresh process for each: OpenTelemetry's global providers can be set once a process. A plugin of the agent's app
# records the run config's telemetry each turn of a case run is made with, as ADK hands it to plugins.
TELEMETRY_SCRIPT = textwrap.dedent(
    """
    import asyncio, json, sys
    from google.adk.apps import App
    from google.adk.plugins.base_plugin import BasePlugin
    from google.genai import types
    from adk_eval_gate.model.evalset import EvalCase, Invocation
    from adk_eval_gate.runners import adk_case
    from adk_eval_gate.runners.adk_plugins import warm_up_agent
    from adk_eval_gate.runners.agents import AgentRef, LoadedAgent
    from adk_eval_gate.runners.simulation import StaticTurns

    exporter = None
    if sys.argv[1] == "sdk":
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        exporter, provider = InMemorySpanExporter(), TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)


    class SeenTelemetry(BasePlugin):
        def __init__(self):
            super().__init__(name="seen_telemetry")
            self.configs = []

        async def before_run_callback(self, *, invocation_context):
            telemetry = invocation_context.run_config.telemetry
            self.configs.append(None if telemetry is None else [
                telemetry.genai_semconv_stability_opt_in, telemetry.capture_message_content.value
            ])


    seen = SeenTelemetry()
    root = warm_up_agent()
    agent = LoadedAgent(AgentRef("module", "seen", "seen"), root, App(name="seen", root_agent=root, plugins=[seen]))
    message = types.Content(role="user", parts=[types.Part(text="hello")])
    case = EvalCase(eval_id="seen", conversation=[Invocation(user_content=message), Invocation(user_content=message)])
    asyncio.run(
        adk_case.run_case(agent, case=case, turns=StaticTurns(case), app_name="seen", user_id="u", session_id="s")
    )
    spans = [] if exporter is None else exporter.get_finished_spans()
    print(json.dumps({
        "exported": adk_case.telemetry_exported(),
        "configs": seen.configs,
        "model_spans": [sorted(span.attributes) for span in spans if span.name.startswith("generate_content")],
    }))
    """
)


def _telemetry_run(mode: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", TELEMETRY_SCRIPT, mode], capture_output=True, text=True, timeout=120, check=True
    )
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


@pytest.mark.slow  # a real ADK agent, in a process of its own
def test_with_nothing_to_see_it_adk_makes_its_cheapest_telemetry() -> None:
    assert _telemetry_run("none") == {
        "exported": False,
        "configs": [["stable", "NO_CONTENT"]] * 2,  # each turn of the case run
        "model_spans": [],
    }


@pytest.mark.slow  # a real ADK agent, in a process of its own
def test_a_tracer_provider_set_by_agent_code_gets_adks_own_telemetry() -> None:
    seen = _telemetry_run("sdk")
    assert seen["exported"] is True
    assert seen["configs"] == [None, None]  # ADK's defaults: the run config's telemetry is not set
    spans = seen["model_spans"]
    assert isinstance(spans, list) and spans
    assert all("gen_ai.tool.definitions" in attributes for attributes in spans)  # the experimental conventions


@pytest.mark.slow  # imports google-adk and builds its agents
def test_local_models_are_those_answered_by_a_model_class_of_the_users_own() -> None:
    """docs/cost.md's local models: a BaseLlm subclass of the user's own (held, inherited from a parent agent, or
    registered with ADK's LLMRegistry) is local; ADK's provider classes, and classes derived from them, are not."""
    from google.adk.agents import LlmAgent, SequentialAgent
    from google.adk.models.google_llm import Gemini
    from google.adk.models.registry import LLMRegistry
    from google.genai import types

    from adk_eval_gate.runners.adk_case import local_models, own_model_class
    from adk_eval_gate.runners.invocations import AgentEvent
    from tests.runners.scripted_model import EchoModel, ScriptedUser

    class TunedGemini(Gemini):  # a wrapper of ADK's Gemini class: the provider's, so not local
        pass

    LLMRegistry.register(ScriptedUser)  # registered by name: "scripted-user-7" resolves to it
    inheriting = LlmAgent(name="inheriting", instruction="Answer.")
    scripted = LlmAgent(name="scripted", model=EchoModel(model="echo"), sub_agents=[inheriting])
    root = SequentialAgent(
        name="root",
        sub_agents=[
            scripted,
            LlmAgent(name="registered", model="scripted-user-7"),
            LlmAgent(name="gemini", model="gemini-2.5-flash"),
            LlmAgent(name="tuned", model=TunedGemini(model="tuned-model-1")),
        ],
    )
    usage = types.GenerateContentResponseUsageMetadata(prompt_token_count=10, candidates_token_count=2)

    def call(author: str, version: str | None) -> AgentEvent:
        return AgentEvent(author=author, invocation_id="i", usage_metadata=usage, model_version=version)

    events = [
        call("scripted", "echo-v1"),
        call("inheriting", None),  # no version reported: named as the usage figures name it
        call("registered", "scripted-user-7"),
        call("gemini", "gemini-2.5-flash"),
        call("tuned", "tuned-model-1"),
        AgentEvent(author="user", invocation_id="i"),
    ]
    agent = LoadedAgent(AgentRef("module", "root", "root"), root, None)
    assert local_models(agent, events) == ["echo-v1", "scripted-user-7", "unknown model"]
    assert agent.local_authors == frozenset({"scripted", "inheriting", "registered"})
    assert own_model_class(EchoModel) and not own_model_class(Gemini) and not own_model_class(TunedGemini)
