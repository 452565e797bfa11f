"""The Vertex AI metrics and final_session_state_match in test_config.json: what loads (ADK too), and one clear
line naming the file, its line, the metric and the field for every mistake."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from google.adk.evaluation.eval_config import EvalConfig as AdkEvalConfig

from adk_eval_gate.inputs.configs import ConfigSource, LoadedConfig, load_config
from adk_eval_gate.support.errors import ConfigError

TEMPLATED = {
    "threshold": 3,
    "criteria": {"Tone": "The reply is polite."},
    "rating_rubric": {"5": "polite", "3": "neutral", "1": "rude"},
    "input_variables": ["prompt", "history"],
}
EVERYTHING = {
    "criteria": {
        "exact_match": 1.0,
        "bleu": {"threshold": 0.2, "use_effective_order": True, "tokenize": "intl"},
        "rouge": {"threshold": 0.3, "rouge_type": "rougeLsum", "use_stemmer": True, "split_summaries": False},
        "rouge_1": 0.4,
        "rouge_2": {"threshold": 0.1, "useStemmer": True},
        "rouge_l": 0.3,
        "rouge_l_sum": 0.3,
        "tool_call_valid": 1.0,
        "tool_name_match": 1.0,
        "tool_parameter_key_match": 0.8,
        "tool_parameter_kv_match": {"threshold": 0.8, "use_strict_string_match": True},
        "response_follows_trajectory": {"threshold": 1.0, "judge_model_options": {"num_samples": 3}},
        "polite_reply": TEMPLATED,
        "final_session_state_match": {"threshold": 1.0, "match_type": "subset", "ignore_keys": ["visits"]},
        "uses_tools": 0.5,
    },
    "custom_metrics": {"uses_tools": {"code_config": {"name": "json.loads"}, "signature": "vertex"}},
}


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "test_config.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def _load(tmp_path: Path, data: dict[str, Any]) -> LoadedConfig:
    return load_config(ConfigSource("folder", _write(tmp_path, data)), root=tmp_path)


def _line(tmp_path: Path, data: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, data)
    assert not caught.value.also, [problem.one_line() for problem in caught.value.every_problem()]
    return caught.value.one_line()


def test_every_new_metric_loads_here_and_in_adk(tmp_path: Path) -> None:
    loaded = _load(tmp_path, EVERYTHING)
    assert loaded.warnings == []
    kinds = {m.name: (m.spec.kind, m.threshold) for m in loaded.metrics}
    assert kinds["polite_reply"] == ("judge", 3.0) and kinds["uses_tools"] == ("custom", 0.5)
    assert kinds["bleu"] == ("deterministic", 0.2) and kinds["final_session_state_match"] == ("deterministic", 1.0)
    assert kinds["response_follows_trajectory"] == ("judge", 1.0)
    polite = next(m for m in loaded.metrics if m.name == "polite_reply")
    assert polite.spec.value_range == (1.0, 5.0)  # a templated metric's range is its rubric's
    adk = AdkEvalConfig.model_validate(EVERYTHING)  # ADK loads the same file (and reports these as not evaluated)
    assert set(adk.criteria) == set(EVERYTHING["criteria"])


@pytest.mark.parametrize(
    ("criterion", "expected"),
    [
        (
            {"rouge_1": {"threshold": 0.5, "use_stemer": True}},
            "test_config.json:5: criteria.rouge_1.use_stemer: use_stemer is not an option of rouge_1; did you mean "
            "'use_stemmer'? (its options: use_stemmer, split_summaries)",
        ),
        (
            {"exact_match": {"threshold": 1, "ignore_case": True}},
            "test_config.json:5: criteria.exact_match.ignore_case: ignore_case is not an option of exact_match "
            "(its options: threshold only)",
        ),
        (
            {"rouge_l": {"threshold": 0.5, "use_stemmer": [True]}},
            "test_config.json:5: criteria.rouge_l.use_stemmer: Input should be a valid boolean (got [true])",
        ),
        (
            {"bleu": {"threshold": 0.5, "tokenize": "ja-mecab"}},
            "test_config.json:5: criteria.bleu.tokenize: Input should be '13a', 'intl', 'zh', 'char' or 'none' "
            '(got "ja-mecab")',
        ),
        (
            {"final_session_state_match": {"threshold": 1, "ignore_keys": "visits"}},
            'test_config.json:5: criteria.final_session_state_match.ignore_keys: must be a list, got "visits"',
        ),
        (
            {"final_session_state_match": {"threshold": 1, "match_type": "fuzzy"}},
            "test_config.json:5: criteria.final_session_state_match.match_type: Input should be 'exact' or 'subset' "
            '(got "fuzzy")',
        ),
        (
            {"polite": {**TEMPLATED, "rating_rubric": {"good": "polite", "bad": "rude"}}},
            "test_config.json:8: criteria.polite.rating_rubric: rating_rubric keys are the scores the judge may give, "
            'as numbers ("1", "0.5"): \'good\' is not a number',
        ),
        (
            {"polite": {**TEMPLATED, "input_variables": ["prompt", "context"]}},
            "test_config.json:13: criteria.polite.input_variables: 'context' is not an input variable; use prompt, "
            "response, reference, predicted_trajectory, reference_trajectory, history",
        ),
        (
            {"polite": {**TEMPLATED, "threshold": 7}},
            "test_config.json:4: criteria.polite: threshold 7 is outside the metric's range [1, 5] "
            "(use a value between 1 and 5)",
        ),
        (
            {"polite": {"threshold": 1, "criteria": {"Tone": "polite"}, "rating_rubrik": {"1": "yes", "0": "no"}}},
            "test_config.json:3: criteria.polite.rating_rubric: is required (this object has 'rating_rubrik': did "
            "you mean 'rating_rubric'?)",
        ),
    ],
    ids=[
        "unknown-option",
        "no-options",
        "wrong-type",
        "bleu-tokenizer",
        "ignore-keys-type",
        "match-type",
        "rubric-not-numbers",
        "unknown-input-variable",
        "threshold-outside-rubric",
        "misspelt-rubric",
    ],
)
def test_one_clear_line_per_mistake(tmp_path: Path, criterion: dict[str, Any], expected: str) -> None:
    assert _line(tmp_path, {"criteria": criterion}) == expected


def test_a_vertex_function_that_does_not_import_is_named_where_it_is_written(tmp_path: Path) -> None:
    data = {
        "criteria": {"uses_tools": 0.5},
        "customMetrics": {"uses_tools": {"codeConfig": {"name": "no_such_pkg.metrics.fn"}, "signature": "vertex"}},
    }
    assert _line(tmp_path, data) == (
        "test_config.json:8: customMetrics.uses_tools.codeConfig.name: cannot import custom metric function "
        "'no_such_pkg.metrics.fn': No module named 'no_such_pkg' (write package.module.function, importable from "
        "the repository root)"
    )
    data["customMetrics"]["uses_tools"]["codeConfig"]["name"] = "json.no_such_function"
    assert "json has no callable 'no_such_function'" in _line(tmp_path, data)
    data["customMetrics"]["uses_tools"]["signature"] = "vertx"
    assert _line(tmp_path, data) == (
        "test_config.json:10: customMetrics.uses_tools.signature: Input should be 'adk' or 'vertex' (got \"vertx\")"
    )
