"""Load every eval file under a folder the ways ADK does and the way we do, and compare the results.

Usage: ``python scripts/compare_with_adk_loaders.py DIR``

For each ``*.json`` file under DIR (``test_config.json`` files are checked as configs, ``initial.session.json``
files only feed the legacy loader):

* ADK's three loaders are tried: ``EvalSet.model_validate_json``, ``load_eval_set_from_file`` (what ``adk eval``
  uses: an EvalSet or a legacy named list) and ``AgentEvaluator._load_eval_set_from_file`` (the pytest path: an
  EvalSet or a legacy query list, with a sibling ``initial.session.json`` as its initial session, as a test would
  pass it with ``initial_session_file=``);
* ours is ``adk_eval_gate.inputs.load.load_eval_file``, with that sibling read (``--legacy-session-file``).

Outcomes, one line per file:

* ``OK``: ADK loads it and we load the same cases: eval ids, turns, user texts, expected final texts, expected
  tool calls and responses, intermediate responses, session input, rubrics and conversation scenarios;
* ``ADK-REJECTS``: every ADK loader fails and we raise one clear ``EvalFileError`` naming the file and the JSON
  path (and line and column for a syntax error);
* ``NOT-EVAL-DATA``: a file ADK rejects that is not eval data at all (not named like an eval file); we report
  what our discovery and loader do with it;
* ``DELIBERATE``: a documented difference (we reject an eval set with no cases; we accept camelCase top-level
  keys and a UTF-8 byte order mark);
* ``CONFIG``: a ``test_config.json``, read by ADK's and by our config loader (information only);
* ``MISMATCH``: anything else. The exit code is 1 if any file is a MISMATCH.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.adk.evaluation.agent_evaluator import AgentEvaluator
from google.adk.evaluation.eval_config import EvalConfig as AdkEvalConfig
from google.adk.evaluation.eval_config import get_evaluation_criteria_or_default
from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet
from google.adk.evaluation.local_eval_sets_manager import load_eval_set_from_file

from adk_eval_gate.inputs.configs import ConfigSource, load_config
from adk_eval_gate.inputs.discover import discover
from adk_eval_gate.inputs.formats import named_as_eval_file
from adk_eval_gate.inputs.load import INITIAL_SESSION_NAME, LoadedEvalSet, load_eval_file, with_session_beside
from adk_eval_gate.support.errors import EvalFileError, GateError

CONFIG_NAME = "test_config.json"
# Files ADK loads that we reject on purpose: a fragment of our message -> why.
DELIBERATE_REJECTIONS = {
    "has no eval cases": "ADK loads an eval set without cases; a gate that would run nothing rejects it",
}


@dataclass
class AdkOutcome:
    """What each ADK loader made of a file: an EvalSet or the error it raised."""

    model: Any
    adk_eval: Any
    pytest_path: Any

    def loaded(self) -> list[Any]:
        return [result for result in (self.model, self.adk_eval, self.pytest_path) if not isinstance(result, Exception)]


def _attempt(load: Any) -> Any:
    try:
        return load()
    except Exception as error:  # ADK's loaders fail with many exception types (KeyError, TypeError, ...)
        return error


def load_with_adk(path: Path, text: str) -> AdkOutcome:
    session_file = path.parent / INITIAL_SESSION_NAME
    try:
        initial_session = json.loads(session_file.read_text(encoding="utf-8")) if session_file.is_file() else {}
    except ValueError:  # a broken session file is our loader's error to report
        initial_session = {}
    return AdkOutcome(
        model=_attempt(lambda: AdkEvalSet.model_validate_json(text)),
        adk_eval=_attempt(lambda: load_eval_set_from_file(str(path), str(path))),
        pytest_path=_attempt(
            lambda: AgentEvaluator._load_eval_set_from_file(str(path), AdkEvalConfig(criteria={}), initial_session)
        ),
    )


# --- the comparable shape of an eval set (works on ADK's models and ours alike) ----------------------------


def _text(content: Any) -> str:
    return "\n".join(part.text for part in (content.parts or []) if part.text) if content else ""


def _event_parts(data: Any) -> list[Any]:
    return [part for event in data.invocation_events if event.content for part in event.content.parts or []]


def _intermediate(data: Any) -> dict[str, Any]:
    if data is None:
        return {"calls": [], "responses": [], "intermediate": [], "events": None}
    if hasattr(data, "invocation_events"):
        parts = _event_parts(data)
        return {
            "calls": [(p.function_call.name, p.function_call.args) for p in parts if p.function_call],
            "responses": [
                (p.function_response.name, p.function_response.response) for p in parts if p.function_response
            ],
            "intermediate": [],
            "events": len(data.invocation_events),
        }
    return {
        "calls": [(call.name, call.args) for call in data.tool_uses],
        "responses": [(response.name, response.response) for response in data.tool_responses],
        "intermediate": [(author, [part.text for part in parts]) for author, parts in data.intermediate_responses],
        "events": None,
    }


def _scenario(scenario: Any) -> dict[str, Any] | None:
    if scenario is None:
        return None
    persona = scenario.user_persona
    return {
        "starting_prompt": scenario.starting_prompt,
        "conversation_plan": scenario.conversation_plan,
        "persona": persona if persona is None or isinstance(persona, str) else persona.id,  # ADK resolves ids
    }


def shape(eval_set: Any) -> list[dict[str, Any]]:
    cases = []
    for case in eval_set.eval_cases:
        turns = [
            {
                "user": _text(invocation.user_content),
                "final": _text(invocation.final_response),
                **_intermediate(invocation.intermediate_data),
                "rubrics": [rubric.model_dump(mode="json") for rubric in invocation.rubrics or []],
            }
            for invocation in case.conversation or []
        ]
        cases.append(
            {
                "eval_id": case.eval_id,
                "turns": turns,
                "session": case.session_input.model_dump(mode="json") if case.session_input else None,
                "rubrics": [rubric.model_dump(mode="json") for rubric in case.rubrics or []],
                "scenario": _scenario(case.conversation_scenario),
            }
        )
    return cases


def differences(theirs: Any, ours: Any, where: str = "") -> list[str]:
    """Where two shapes differ, as ``path: ADK ... / ours ...`` lines (lists: their lengths, then item by item)."""
    if isinstance(theirs, dict) and isinstance(ours, dict) and theirs.keys() == ours.keys():
        return [d for key in theirs for d in differences(theirs[key], ours[key], f"{where}.{key}")]
    if isinstance(theirs, list | tuple) and isinstance(ours, list | tuple):
        found = [] if len(theirs) == len(ours) else [f"{where or 'file'}: ADK {len(theirs)} / ours {len(ours)} items"]
        pairs = zip(theirs[: len(ours)], ours[: len(theirs)], strict=True)
        return found + [d for i, (a, b) in enumerate(pairs) for d in differences(a, b, f"{where}[{i}]")]
    if theirs == ours:
        return []
    return [f"{where or 'file'}: ADK {_short(theirs)} / ours {_short(ours)}"]


def _short(value: Any) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# --- classification ------------------------------------------------------------------------------------------


def _reference(adk: AdkOutcome, ours: LoadedEvalSet) -> Any:
    """The ADK result to compare with: the loader that reads the shape we recognised."""
    return {"evalset": adk.model, "legacy_named_list": adk.adk_eval, "legacy_query_list": adk.pytest_path}[ours.format]


def compare_loaded(path: Path, adk: AdkOutcome, ours: LoadedEvalSet) -> list[str]:
    reference = _reference(adk, ours)
    if isinstance(reference, Exception):
        return [f"we read it as {ours.format}, but ADK's loader for that shape fails: {_adk_error(reference)}"]
    theirs = shape(reference)
    if ours.format == "legacy_query_list":  # ADK names the single case after the path it was given
        for case in theirs:
            case["eval_id"] = ours.display if case["eval_id"] == str(path) else case["eval_id"]
    problems = differences(theirs, shape(ours.eval_set))
    if ours.format == "evalset" and reference.eval_set_id != ours.eval_set.eval_set_id:
        problems.append(f"eval_set_id: ADK {reference.eval_set_id!r} / ours {ours.eval_set.eval_set_id!r}")
    return problems


def check_clear_error(error: EvalFileError, *, display: str, text: str | None) -> list[str]:
    """Our error must name the file, and the line and column of a syntax error or the JSON path otherwise."""
    problems = [] if display in error.one_line() else ["the message does not name the file"]
    data: Any = None
    try:
        data = json.loads(text) if text is not None else None
    except json.JSONDecodeError:
        if not (error.line and error.column):
            problems.append("a JSON syntax error without line and column")
        return problems
    if isinstance(data, dict) and not error.field and text is not None:
        problems.append("no JSON path (.field) for a validation error")
    return problems


def _adk_error(error: Exception) -> str:
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {first}"[:140]


def _lenient_retry(text: str) -> bool:
    """Whether ADK loads the file once a byte order mark is dropped and top-level camelCase keys are renamed."""
    try:
        data = json.loads(text.removeprefix("\ufeff"))
    except json.JSONDecodeError:
        return False
    if isinstance(data, dict):
        renames = {"evalSetId": "eval_set_id", "evalCases": "eval_cases", "creationTimestamp": "creation_timestamp"}
        data = {renames.get(key, key): value for key, value in data.items()}
    return not isinstance(_attempt(lambda: AdkEvalSet.model_validate(data)), Exception)


def is_eval_named(relative: Path) -> bool:
    return named_as_eval_file(relative.name) or "eval_sets" in relative.parts


def describe_json(text: str | None) -> str:
    try:
        data = json.loads(text) if text is not None else None
    except json.JSONDecodeError:
        return "not valid JSON"
    if isinstance(data, dict):
        if "events" in data:
            return "an `adk test` replay session (events), read by ADK's agent_test_runner, not by its eval loaders"
        if "newMessage" in data or "new_message" in data:
            return "a request body for ADK's /run endpoint"
        return "a JSON object with keys " + ", ".join(sorted(data)[:6])
    return f"a JSON {type(data).__name__}"


def check_file(path: Path, root: Path, *, discovered: bool) -> tuple[str, str]:
    display = path.relative_to(root).as_posix()
    found = "" if discovered else " [folder discovery skips it (not *.test.json / *.evalset.json): name it explicitly]"
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    adk = load_with_adk(path, text)
    try:
        ours: LoadedEvalSet | EvalFileError = with_session_beside(load_eval_file(path, display=display), read=True)
    except EvalFileError as error:
        ours = error
    except Exception as error:  # a crash of ours is always a failure
        return "MISMATCH", f"our loader crashed: {type(error).__name__}: {error}"
    loaded_by_adk = adk.loaded()
    if loaded_by_adk and isinstance(ours, LoadedEvalSet):
        problems = compare_loaded(path, adk, ours)
        if problems:
            return "MISMATCH", "; ".join(problems[:4]) + (f" (+{len(problems) - 4} more)" if len(problems) > 4 else "")
        cases = ours.eval_set.eval_cases
        turns = sum(len(case.conversation or []) for case in cases)
        return "OK", f"{ours.format}: {len(cases)} case(s), {turns} turn(s), same as ADK{found}"
    if loaded_by_adk and isinstance(ours, EvalFileError):
        for fragment, reason in DELIBERATE_REJECTIONS.items():
            if fragment in ours.message:
                counts = ", ".join(str(len(result.eval_cases)) for result in loaded_by_adk)
                return "DELIBERATE", f"ADK loads it (cases per loader: {counts}); ours: {ours.one_line()} -- {reason}"
        return "MISMATCH", f"ADK loads it, ours fails: {ours.one_line()}"
    if isinstance(ours, LoadedEvalSet):
        if _lenient_retry(text):
            return "DELIBERATE", "ADK rejects only its camelCase top-level keys or byte order mark; we accept them"
        return "MISMATCH", f"every ADK loader fails ({_adk_error(adk.model)}), but we load it"
    problems = check_clear_error(ours, display=display, text=text)
    adk_says = f"ADK: model {_adk_error(adk.model)} | adk eval {_adk_error(adk.adk_eval)}"
    adk_says += f" | pytest {_adk_error(adk.pytest_path)}"
    if problems:
        return "MISMATCH", f"unclear error ({'; '.join(problems)}): {ours.one_line()} [{adk_says}]"
    if not is_eval_named(path.relative_to(root)):
        walk = "our folder discovery picks it up" if discovered else "our folder discovery skips it"
        return "NOT-EVAL-DATA", f"{describe_json(text)}; {walk}; named explicitly, ours says: {ours.one_line()}"
    return "ADK-REJECTS", f"ours: {ours.one_line()} [{adk_says}]"


def check_config(path: Path, root: Path) -> tuple[str, str]:
    theirs = _attempt(lambda: get_evaluation_criteria_or_default(str(path)))
    adk_says = (
        f"ADK reads criteria {sorted(theirs.criteria)}" if not isinstance(theirs, Exception) else _adk_error(theirs)
    )
    try:
        loaded = load_config(ConfigSource("folder", path), root=root)
    except GateError as error:
        return "CONFIG", f"{adk_says}; ours rejects it: {error.one_line()}"
    except Exception as error:
        return "MISMATCH", f"{adk_says}; our config loader crashed: {type(error).__name__}: {error}"
    return "CONFIG", f"{adk_says}; ours reads metrics {[metric.name for metric in loaded.metrics]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("folder", type=Path, help="a folder of eval files (e.g. files fetched from google/adk-python)")
    folder: Path = parser.parse_args(argv).folder.resolve()
    try:
        discovered = {ref.path.resolve() for ref in discover([str(folder)], root=folder)}
    except GateError:  # no file named like an eval file
        discovered = set()
    previous_disable = logging.root.manager.disable
    logging.disable(logging.WARNING)  # ADK warns on every legacy file it converts
    try:
        counts = check_folder(folder, discovered)
    finally:
        logging.disable(previous_disable)
    total = sum(counts.values())
    order = ["OK", "ADK-REJECTS", "NOT-EVAL-DATA", "DELIBERATE", "CONFIG", "MISMATCH"]
    print(f"summary: {total} files: " + ", ".join(f"{counts.get(name, 0)} {name}" for name in order))
    return 1 if counts.get("MISMATCH") else 0


def check_folder(folder: Path, discovered: set[Path]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for path in sorted(folder.rglob("*.json")):
        if path.name == INITIAL_SESSION_NAME:
            continue
        if path.name == CONFIG_NAME:
            outcome, detail = check_config(path, folder)
        else:
            outcome, detail = check_file(path, folder, discovered=path.resolve() in discovered)
        counts[outcome] = counts.get(outcome, 0) + 1
        print(f"{outcome:13} {path.relative_to(folder).as_posix()}: {detail}")
    return counts


if __name__ == "__main__":
    sys.exit(main())
