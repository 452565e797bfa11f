"""``schema/calibration.schema.json``: generated from ``calibrate``'s model as results.json's schema is, kept equal
to it, and matching what the gate writes (a judge with kappa and its interval, and one whose kappa is undefined)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from adk_eval_gate.model.results import CalibrationDocument, calibration_json_schema
from tests.report.scenarios import load_input

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "schema" / "calibration.schema.json"


def test_the_committed_schema_is_the_models() -> None:
    assert json.loads(COMMITTED.read_text(encoding="utf-8")) == calibration_json_schema(), (
        "regenerate: python -m adk_eval_gate.model.results calibration > schema/calibration.schema.json"
    )


def test_a_calibration_document_matches_it_and_a_wrong_one_does_not() -> None:
    recorded = load_input("judges").calibrations
    assert recorded, "the judges golden input records its calibrations"
    undefined = recorded[0].model_copy(update={"kappa": None, "kappa_interval": None, "disagreements": []})
    written = CalibrationDocument(metrics=[*recorded, undefined], notes=["1 label of safety_v1: not in use"])
    schema = json.loads(COMMITTED.read_text(encoding="utf-8"))
    jsonschema.validate(json.loads(written.model_dump_json()), schema)
    wrong = json.loads(written.model_dump_json())
    wrong["metrics"][0]["kappa_interval"] = [0.1]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(wrong, schema)


@pytest.mark.slow  # a process of its own
def test_the_generator_writes_it() -> None:
    command = [sys.executable, "-m", "adk_eval_gate.model.results", "calibration"]
    generated = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    assert generated == json.loads(COMMITTED.read_text(encoding="utf-8"))
