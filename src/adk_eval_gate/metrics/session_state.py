"""``final_session_state_match``: the case's ``final_session_state`` (an EvalCase field no ADK 2.13 metric reads)
against the session state after the run.

``match_type`` ``exact`` (the default): every key of either state, ``ignore_keys`` left out, must have the same
value on both sides; ``subset``: every expected key must be there with the same value, other keys are free.
Values are equal under Python ``==`` on the decoded JSON (ADK's rule for tool arguments). The score is the share
of those keys that match, 1.0 when there are none; it belongs to the whole conversation, so the last invocation
carries it (the earlier ones are not evaluated), as with ADK's multi-turn metrics. The keys that differ are kept
in the details, for the reports.
"""

from __future__ import annotations

from typing import Any

from adk_eval_gate.metrics.metric import CaseRun, Metric, MetricOutcome, NotEvaluated
from adk_eval_gate.model import eval_config

MAX_DIFFERENCES = 50  # differing keys kept in the details (the score counts all of them)


def _state_differences(
    expected: dict[str, Any], actual: dict[str, Any], *, subset: bool
) -> tuple[int, list[dict[str, Any]]]:
    """(how many keys are compared, the keys that differ: ``{"key", "expected"?, "actual"?}``, a side left out
    where the key is missing)."""
    keys = list(expected) + ([key for key in actual if key not in expected] if not subset else [])
    differing: list[dict[str, Any]] = []
    for key in keys:
        if key in expected and key in actual and expected[key] == actual[key]:
            continue
        entry: dict[str, Any] = {"key": key}
        if key in expected:
            entry["expected"] = expected[key]
        if key in actual:
            entry["actual"] = actual[key]
        differing.append(entry)
    return len(keys), differing


class FinalSessionStateMatch(Metric):
    def options(self) -> eval_config.FinalSessionStateCriterion:
        if isinstance(self.criterion, eval_config.FinalSessionStateCriterion):
            return self.criterion
        return eval_config.FinalSessionStateCriterion(threshold=self.threshold)

    def evaluate(self, run: CaseRun) -> MetricOutcome:
        case = run.eval_case
        if "final_session_state" not in case.model_fields_set or case.final_session_state is None:
            raise NotEvaluated("this case has no final_session_state to compare the session state with")
        if run.final_session_state is None:
            raise NotEvaluated(
                "the session state after the run was not recorded (a recorded ADK result without session_details, "
                "or an agent server that does not answer GET on the session)"
            )
        options = self.options()
        ignored = set(options.ignore_keys)
        expected = {key: value for key, value in case.final_session_state.items() if key not in ignored}
        actual = {key: value for key, value in run.final_session_state.items() if key not in ignored}
        compared, differing = _state_differences(expected, actual, subset=options.match_type == "subset")
        score = (compared - len(differing)) / compared if compared else 1.0
        details: dict[str, Any] = {"match_type": options.match_type, "keys_compared": compared}
        if differing:
            details["differing_keys"] = differing[:MAX_DIFFERENCES]
        return MetricOutcome.last_turn(score, len(run.actual), details=details)
