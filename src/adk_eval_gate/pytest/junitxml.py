"""What the gate adds to pytest's own ``--junitxml`` for the eval cases, as its own junit.xml has it: the eval
file and the case's line on the testcase (pytest's default family, xunit2, leaves them out, so the JUnit readers
pointed their annotations at ``weather_agent.holdout.evalset.json`` or a file named ``json``), the scores as the
testcase's properties, and Maven Surefire's re-run elements (``flakyFailure``, ``rerunFailure``).

Each eval test carries them in its ``user_properties`` (they travel with the test's report, also from a
pytest-xdist worker); the entries named ``adk-eval-gate:...`` are ours only, and once pytest has written the file
they become the testcase's attributes and elements (``enrich``).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from adk_eval_gate.model.results import CaseResult
from adk_eval_gate.report.junit import Rerun, case_properties, reruns

PREFIX = "adk-eval-gate:"
FILE, LINE, RERUNS = f"{PREFIX}file", f"{PREFIX}line", f"{PREFIX}reruns"
_OUTCOMES = ("failure", "error", "skipped")


def properties(*, file: str, line: int | None, case: CaseResult | None) -> list[tuple[str, str]]:
    """The test's properties: its scores (each metric's, each run's), its runs and stability, then ours."""
    found: list[tuple[str, str]] = []
    if case is not None:
        for metric in case.metrics:
            score = "n/a" if metric.score is None else f"{metric.score:.6g}"
            found.append((metric.name, f"{score} ({metric.status})"))
        for run in case.runs if len(case.runs) > 1 else []:
            for scored in run.metrics:
                score = "n/a" if scored.score is None else f"{scored.score:.6g}"
                found.append((f"{scored.name}#{run.run}", f"{score} ({scored.status})"))
        prefix = f"{case.label}."
        found += [(name.removeprefix(prefix), value) for name, value in case_properties(case).items()]
    found += [(FILE, file), (LINE, str(line or 1))]
    if case is not None and (elements := reruns(case)):
        found.append((RERUNS, json.dumps([rerun.__dict__ for rerun in elements])))
    return found


def enrich(path: Path) -> None:
    """The junit.xml pytest wrote, with our entries made attributes and elements of their testcases."""
    tree = ET.parse(path)
    changed = False
    for testcase in tree.getroot().iter("testcase"):
        changed |= _enrich(testcase)
    if changed:
        tree.write(path, encoding="utf-8", xml_declaration=True)


def _enrich(testcase: ET.Element) -> bool:
    holder = testcase.find("properties")
    if holder is None:
        return False
    ours = [p for p in holder.findall("property") if p.get("name", "").startswith(PREFIX)]
    if not ours:
        return False
    values = {p.get("name"): p.get("value", "") for p in ours}
    for prop in ours:
        holder.remove(prop)
    if not len(holder):
        testcase.remove(holder)
    testcase.set("file", values.get(FILE, ""))
    testcase.set("line", values.get(LINE, "1"))
    elements = [Rerun(**item).element() for item in json.loads(values.get(RERUNS) or "[]")]
    children = list(testcase)
    after = max((i + 1 for i, child in enumerate(children) if child.tag in (*_OUTCOMES, "properties")), default=0)
    for offset, element in enumerate(elements):
        testcase.insert(after + offset, element)
    return True
