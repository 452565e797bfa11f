"""adk-eval-gate inside pytest: the ``--adk-eval`` plugin (``plugin``) and ADK's ``AgentEvaluator``.

``from adk_eval_gate.pytest import AgentEvaluator`` (or ``evaluate``) replaces
``from google.adk.evaluation.agent_evaluator import AgentEvaluator`` in an ADK test module. Importing this
package imports neither pytest nor the gate's stages: pytest loads the plugin in every run of every project
where the gate is installed, and it must cost nothing there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from adk_eval_gate.pytest.agent_evaluator import AgentEvaluator
    from adk_eval_gate.pytest.evaluator import evaluate

__all__ = ["AgentEvaluator", "evaluate"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from adk_eval_gate.pytest import agent_evaluator

        return getattr(agent_evaluator, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
