"""``python -m adk_eval_gate.model.results > schema/results.schema.json``: results.json's JSON Schema."""

from __future__ import annotations

import json

from adk_eval_gate.model.results import json_schema

print(json.dumps(json_schema(), indent=2))
