"""A scripted judge model for ADK itself (spec 6.3): a ``BaseLlm`` registered in ADK's ``LLMRegistry`` for
``scripted-judge*`` that answers from the same scripts the fake Gemini server uses, so ADK's evaluators and
ours can be given the same judge answers."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Any, ClassVar

from google.adk.evaluation import conversation_scenarios as adk_scenarios
from google.adk.evaluation import eval_case as adk_case
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.models.registry import LLMRegistry
from google.genai import types

from adk_eval_gate.model.evalset import ConversationScenario, Invocation
from tests.fakes.gemini_server import Reply


class ScriptedJudgeLlm(BaseLlm):
    model: str = "scripted-judge"
    script: ClassVar[Callable[[str], Any] | None] = None
    prompts: ClassVar[list[str]] = []

    @classmethod
    def supported_models(cls) -> list[str]:
        return [r"scripted-judge.*"]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        prompt = "\n".join(p.text for c in llm_request.contents for p in c.parts or [] if p.text)
        type(self).prompts.append(prompt)
        script = type(self).script
        assert script is not None, "set ScriptedJudgeLlm.script first"
        answer = script(prompt)
        if isinstance(answer, Reply):
            raise RuntimeError(f"scripted judge error {answer.status}")
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=answer)]))


LLMRegistry.register(ScriptedJudgeLlm)


def use_script(script: Callable[[str], Any]) -> None:
    ScriptedJudgeLlm.script = script
    ScriptedJudgeLlm.prompts = []


def to_adk(invocations: list[Invocation] | None) -> list[adk_case.Invocation] | None:
    if invocations is None:
        return None
    return [adk_case.Invocation.model_validate(i.model_dump(mode="python")) for i in invocations]


def scenario_to_adk(scenario: ConversationScenario) -> adk_scenarios.ConversationScenario:
    return adk_scenarios.ConversationScenario.model_validate(scenario.model_dump(mode="python"))
