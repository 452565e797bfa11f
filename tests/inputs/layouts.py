"""Test repositories made of real ADK repositories' files (``tests/fixtures/real_layouts``), with a scripted agent
where each real agent was: it replays what the eval files expect (their tool calls, then their answer), so each
case passes or fails by its own criteria and nothing reaches a model."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from adk_eval_gate.inputs.load import load_eval_file

LAYOUTS = Path(__file__).resolve().parents[1] / "fixtures" / "real_layouts"

REPLAY_AGENT = '''
import json
from pathlib import Path

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.base_tool import BaseTool
from google.genai import types

NAME = {name!r}
SCRIPT = json.loads((Path(__file__).parent / "replay.json").read_text(encoding="utf-8"))


class ReplayTool(BaseTool):
    def _get_declaration(self):
        return types.FunctionDeclaration(name=self.name, description=self.description)

    async def run_async(self, *, args, tool_context):
        return {{"ok": True, "agent": NAME}}


class ReplayModel(BaseLlm):
    """Answers a user turn with the calls the eval file expects, one per model call, then its answer."""

    async def generate_content_async(self, llm_request, stream=False):
        contents = llm_request.contents
        last_user = max(
            i for i, c in enumerate(contents) if c.role == "user" and any(p.text for p in c.parts or [])
        )
        text = " ".join(p.text for p in contents[last_user].parts if p.text)
        done = sum(1 for c in contents[last_user + 1 :] for p in c.parts or [] if p.function_response)
        turn = SCRIPT.get(text, {{"calls": [], "answer": f"{{NAME}} does not know {{text!r}}"}})
        if done < len(turn["calls"]):
            name, args = turn["calls"][done]
            parts = [types.Part(function_call=types.FunctionCall(name=name, args=args))]
        else:
            parts = [types.Part(text=turn["answer"])]
        yield LlmResponse(
            content=types.Content(role="model", parts=parts),
            model_version="replay-1",
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=12, candidates_token_count=4, total_token_count=16
            ),
        )


TOOLS = sorted({{name for turn in SCRIPT.values() for name, _ in turn["calls"]}})
root_agent = LlmAgent(
    name=NAME,
    model=ReplayModel(model="replay"),
    instruction="Replay the expected conversation.",
    tools=[ReplayTool(name=tool, description=f"the {{tool}} tool") for tool in TOOLS],
)
'''


def copy_layout(name: str, dest: Path) -> Path:
    """The layout as a new git repository at ``dest``."""
    shutil.copytree(LAYOUTS / name, dest)
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    return dest


def replay_script(eval_files: list[Path]) -> dict[str, dict[str, object]]:
    """Per user text of the files: the tool calls the file expects for that turn, then its expected answer."""
    script: dict[str, dict[str, object]] = {}
    for path in eval_files:
        loaded = load_eval_file(path, display=path.name)
        for case in loaded.eval_set.eval_cases:
            for invocation in case.conversation or []:
                text = " ".join(p.text for p in invocation.user_content.parts or [] if p.text)
                data = invocation.intermediate_data
                calls = [[call.name, call.args or {}] for call in getattr(data, "tool_uses", None) or []]
                final = invocation.final_response
                answer = " ".join(p.text for p in (final.parts or []) if p.text) if final else ""
                script[text] = {"calls": calls, "answer": answer}
    return script


def write_replay_agent(folder: Path, *, name: str, eval_files: list[Path]) -> Path:
    """A scripted agent package at ``folder`` that replays ``eval_files``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "__init__.py").write_text("from . import agent\n", encoding="utf-8")
    (folder / "agent.py").write_text(REPLAY_AGENT.format(name=name), encoding="utf-8")
    script = json.dumps(replay_script(eval_files), ensure_ascii=False)
    (folder / "replay.json").write_text(script, encoding="utf-8")
    return folder


def adk_samples(dest: Path) -> Path:
    """adk-samples' customer-service, travel-concierge and llm-auditor, each agent replaced by a replaying one."""
    repo = copy_layout("adk_samples", dest)
    agents = repo / "python" / "agents"
    for project, package in [
        ("customer-service", "customer_service"),
        ("travel-concierge", "travel_concierge"),
        ("llm-auditor", "llm_auditor"),
    ]:
        evals = sorted((agents / project / "eval").rglob("*.test.json"))
        write_replay_agent(agents / project / package, name=package, eval_files=evals)
    return repo
