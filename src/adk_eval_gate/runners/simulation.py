"""The user's side of a case run: the turns of a static conversation, or ADK's LLM-backed user simulator.

A ``conversation_scenario`` case is driven by ADK's ``UserSimulatorProvider`` with the file's
``user_simulator_config`` (our model converted to ADK's), exactly as ``adk eval`` drives it; the simulator reads
the ADK events of the conversation so far and answers with the next message, or none when it is done.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncGenerator
from typing import Any, Protocol

from google.genai import types as genai_types

from adk_eval_gate.inputs.plan import WorkItem
from adk_eval_gate.model.eval_config import UserSimulatorConfig
from adk_eval_gate.model.evalset import EvalCase
from adk_eval_gate.model.tokens import Tokens, tokens_of
from adk_eval_gate.support.errors import GateError


class SimulatorError(GateError):
    """The user simulator cannot be set up for a case."""


class UserSimulatorFailed(GateError):
    """The user simulator raised while writing a user message: its model's failure (a rejected key, an outage), not
    the agent's. The cause is kept, so a transient one is retried as an agent's would be."""


class UserTurns(Protocol):
    calls: list[Tokens]  # the model calls the user's side made (the simulator's), kept apart from the agent's

    async def next_message(self, events: list[Any]) -> genai_types.Content | None:
        """The next user message, given the ADK events so far; None when the conversation is over."""
        ...


class StaticTurns:
    def __init__(self, case: EvalCase) -> None:
        self.messages = [invocation.user_content for invocation in case.conversation or []]
        self.index = 0
        self.calls: list[Tokens] = []

    async def next_message(self, events: list[Any]) -> genai_types.Content | None:
        if self.index >= len(self.messages):
            return None
        self.index += 1
        return self.messages[self.index - 1]


class _CountingModel:
    """Stands in for the simulator's model: every call goes through, and its token counts are kept."""

    def __init__(self, model: Any, calls: list[Tokens]) -> None:
        self._model = model
        self._calls = calls

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> AsyncGenerator[Any, None]:
        async for response in self._model.generate_content_async(llm_request, stream=stream):
            if response.usage_metadata is not None or response.model_version:
                model = response.model_version or str(getattr(self._model, "model", "user simulator"))
                self._calls.append(tokens_of(model, response.usage_metadata))
            yield response

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)


class SimulatedTurns:
    def __init__(self, simulator: Any) -> None:
        self.simulator = simulator
        self.calls: list[Tokens] = []
        self.turns = 0
        model = getattr(simulator, "_llm", None)  # ADK's LlmBackedUserSimulator keeps its model there
        self.model = str(getattr(model, "model", "") or type(simulator).__name__)
        if model is not None:
            simulator._llm = _CountingModel(model, self.calls)

    async def next_message(self, events: list[Any]) -> genai_types.Content | None:
        from google.adk.evaluation.simulation.user_simulator import Status

        self.turns += 1
        try:
            result = await self.simulator.get_next_user_message(copy.deepcopy(events))
        except Exception as error:
            detail = " ".join(str(error).split())
            detail = detail if len(detail) <= 300 else detail[:297] + "..."
            raised = f"{type(error).__name__}: {detail}" if detail else type(error).__name__
            raise UserSimulatorFailed(
                f"the user simulator on {self.model} raised {raised} (writing user turn {self.turns})"
            ) from error
        if result.status != Status.SUCCESS:
            return None
        if result.user_message is None:
            raise RuntimeError("the user simulator reported success without a message")
        message: genai_types.Content = result.user_message
        return message


_ADK_CONFIGS: dict[int, Any] = {}


def _adk_simulator_config(config: UserSimulatorConfig | None) -> Any:
    """ADK's user simulator config for ours (None: ADK's default, an LLM-backed simulator on gemini-2.5-flash)."""
    if config is None:
        return None
    key = id(config)
    if key not in _ADK_CONFIGS:
        from google.adk.evaluation.eval_config import EvalConfig as AdkEvalConfig

        raw = config.model_dump(exclude_none=True)
        try:
            _ADK_CONFIGS[key] = AdkEvalConfig.model_validate({"user_simulator_config": raw}).user_simulator_config
        except ValueError as error:
            raise SimulatorError(f"user_simulator_config is not usable by ADK: {error}") from None
    return _ADK_CONFIGS[key]


def user_turns(item: WorkItem) -> UserTurns:
    case = item.case
    if case.conversation is not None:
        return StaticTurns(case)
    try:
        from google.adk.evaluation.eval_case import EvalCase as AdkEvalCase
        from google.adk.evaluation.simulation.user_simulator_provider import UserSimulatorProvider
    except ImportError as error:
        raise SimulatorError(
            f"conversation_scenario cases need google-adk's user simulator, which cannot be imported ({error})",
            hint="pip install 'adk-eval-gate[adk]'",
        ) from None
    assert case.conversation_scenario is not None
    config = _adk_simulator_config(item.file.config.config.user_simulator_config)
    adk_case = AdkEvalCase.model_validate(
        {"eval_id": case.eval_id, "conversation_scenario": case.conversation_scenario.model_dump(exclude_none=True)}
    )
    try:
        simulator = UserSimulatorProvider(user_simulator_config=config).provide(adk_case)
    except ValueError as error:
        raise SimulatorError(f"the user simulator cannot run this case: {error}") from None
    return SimulatedTurns(simulator)
