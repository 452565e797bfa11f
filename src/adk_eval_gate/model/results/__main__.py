"""``python -m adk_eval_gate.model.results [results|calibration] > schema/NAME.schema.json``: the JSON Schema of
results.json (the default) or of ``calibrate``'s calibration.json."""

from __future__ import annotations

import json
import sys

from adk_eval_gate.model.results import calibration_json_schema, json_schema

SCHEMAS = {"results": json_schema, "calibration": calibration_json_schema}

name = sys.argv[1] if len(sys.argv) > 1 else "results"
if name not in SCHEMAS:
    sys.exit(f"usage: python -m adk_eval_gate.model.results [{'|'.join(SCHEMAS)}]")
print(json.dumps(SCHEMAS[name](), indent=2))
