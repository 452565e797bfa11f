"""Makes a golden input as an older version of the gate wrote it: a current results.json without every key that
the results.json schema of that version did not have.

    git show COMMIT:schema/results.schema.json > /tmp/schema.json
    python tests/golden/older_input.py /tmp/schema.json tests/golden/inputs/NAME.results.json \\
        > tests/golden/inputs/NAME.COMMIT.results.json

Run once per older input; the file it writes is then kept as it is (an older gate's file never changes), and
``tests/golden/expected/NAME.COMMIT/`` is written like every input's (tests/README.md).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _resolved(schema: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    """The object schema a value has: ``$ref`` followed, the object branch of an ``anyOf`` (an optional model)."""
    if "$ref" in schema:
        return _resolved(definitions[schema["$ref"].rsplit("/", 1)[-1]], definitions)
    for branch in schema.get("anyOf", []):
        found = _resolved(branch, definitions)
        if found.get("properties") or found.get("items") or isinstance(found.get("additionalProperties"), dict):
            return found
    return schema


def stripped(value: Any, schema: dict[str, Any], definitions: dict[str, Any]) -> Any:
    """``value`` with only the keys ``schema`` knows, at every level."""
    schema = _resolved(schema, definitions)
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [stripped(item, schema["items"], definitions) for item in value]
    if not isinstance(value, dict):
        return value
    if "properties" in schema:
        known = schema["properties"]
        return {key: stripped(item, known[key], definitions) for key, item in value.items() if key in known}
    if isinstance(schema.get("additionalProperties"), dict):
        return {key: stripped(item, schema["additionalProperties"], definitions) for key, item in value.items()}
    return value


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    schema = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    current = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    print(json.dumps(stripped(current, schema, schema.get("$defs", {})), indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
