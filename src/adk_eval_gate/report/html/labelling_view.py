"""report.html's "Label the judges": the run's judged turns (the labels ``adk-eval-gate label`` writes,
``model/suggested_labels.py``), each with its metric, the user's message, the agent's answer, the expected answer
where the metric reads one and the judge's verdict, which a person agrees or disagrees with (or scores on the
metric's scale) and downloads as a ``*.labels.json``: the page's script (``assets/labelling.js``) builds the view
from the data here, every text as ``textContent``, and makes the file in the browser, offline.

Each item carries its label entry exactly as ``label`` writes it; the script changes only its ``label``,
``confirmed`` and ``labeller``. A turn shown cut (a text over ``TEXT_LIMIT`` characters) or whose entry is over
``MAX_ENTRY_CHARS`` is shown without controls and left out of the download: a label is never made from a text its
labeller did not see whole. At most ``MAX_PER_METRIC`` turns of a metric and ``MAX_DATA_CHARS`` of data are in the
page; the view says how many more ``label`` writes."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from adk_eval_gate.inputs import formats
from adk_eval_gate.metrics.registry import BUILT_IN
from adk_eval_gate.model.evalset import content_text
from adk_eval_gate.model.judge_labels import EXPECTED_READERS, RUBRIC_PREFIX, JudgeLabel
from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.model.suggested_labels import suggested_labels
from adk_eval_gate.report.html.parts import TEXT_LIMIT, element, json_for_script, plain, text
from adk_eval_gate.support.words import plural

MAX_ENTRY_CHARS = 60_000  # a label's JSON, its tool uses and their answers included
MAX_PER_METRIC = 200  # the 50 to 200 labels a judge needs; `label` writes every turn
MAX_DATA_CHARS = 2_000_000  # every item's data together
DOWNLOAD_NAME = f"judges{formats.JUDGE_LABELS.suffixes[0]}"
TITLE = "Label the judges"
NOTHING_TO_LABEL = "No turn of this run has an LLM judge's score: nothing to label."
NO_SCRIPT = "The judged turns are listed by this page's script: open the page in a browser with JavaScript on."
_LABEL_IT_IN_THE_FILE = "label it in the file adk-eval-gate label writes"


def _reads_expected(metric: str) -> bool:
    """A built-in judge reads the expected answer only where ADK's does; a templated judge may read it."""
    return metric in EXPECTED_READERS or metric not in BUILT_IN


def _scale(metric: str) -> list[float] | None:
    spec = BUILT_IN.get(metric)
    return list(spec.value_range) if spec is not None and spec.value_range else None


def _refusal(texts: list[str], entry_chars: int) -> str | None:
    if any(len(shown) > TEXT_LIMIT for shown in texts):
        return f"A text of this turn is over {TEXT_LIMIT:,} characters and is shown cut: {_LABEL_IT_IN_THE_FILE}."
    if entry_chars > MAX_ENTRY_CHARS:
        return f"This turn's data is over {MAX_ENTRY_CHARS:,} characters (its tool uses): {_LABEL_IT_IN_THE_FILE}."
    return None


def _label_item(label: JudgeLabel) -> dict[str, Any]:
    """What the script shows of a suggested label and, unless it refuses it, the entry it downloads."""
    expected = label.expected_invocation
    answers = {
        "user": content_text(label.invocation.user_content),
        "answer": content_text(label.invocation.final_response),
        "expected": content_text(expected.final_response) if expected and _reads_expected(label.metric) else None,
    }
    entry = label.model_dump(mode="json", exclude_none=True, by_alias=False)
    refusal = _refusal([shown for shown in answers.values() if shown is not None], len(json.dumps(entry)))
    item: dict[str, Any] = {"metric": plain(label.metric), "case": plain(label.case or "")}
    item |= {name: None if shown is None else plain(shown) for name, shown in answers.items()}
    item |= {"judge": label.label, "scale": _scale(label.metric)}
    item |= {"refused": refusal} if refusal else {"entry": entry}
    return item


def _label_items(doc: ResultsDocument) -> tuple[list[dict[str, Any]], Counter[str]]:
    """The items in the page, and per metric how many judged turns are not in it (over its limits)."""
    items: list[dict[str, Any]] = []
    shown: Counter[str] = Counter()
    left_out: Counter[str] = Counter()
    size = 0
    for label in suggested_labels(doc).labels:
        if shown[label.metric] >= MAX_PER_METRIC or size > MAX_DATA_CHARS:
            left_out[label.metric] += 1
            continue
        item = _label_item(label)
        items.append(item)
        shown[label.metric] += 1
        size += len(json.dumps(item))
    return items, left_out


def _notes(doc: ResultsDocument, items: list[dict[str, Any]], left_out: Counter[str]) -> list[str]:
    notes = [
        f"{plural(count, 'more judged turn')} of {metric} not in this page (it holds {MAX_PER_METRIC} a metric, "
        f"{MAX_DATA_CHARS:,} characters in all): "
        "adk-eval-gate label writes every one."
        for metric, count in sorted(left_out.items())
    ]
    refused = sum(1 for item in items if "refused" in item)
    if refused:
        notes.append(f"{plural(refused, 'turn')} too long to label here: shown, and left out of the download.")
    rubrics = sorted({m.name for m in doc.metrics if m.kind == "judge" and m.name.startswith(RUBRIC_PREFIX)})
    if rubrics:
        notes.append(
            f"Rubric metrics ({', '.join(rubrics)}) are labelled by hand: results.json does not keep each turn's "
            "rubric text."
        )
    return notes


def _view(count: int) -> str:
    labeller = element(
        "label",
        text("Labelled by ")
        + '<input type="text" id="labeller" maxlength="200" autocomplete="name" placeholder="your name (optional)">',
    )
    button = element("button", text("Download labels"), attrs={"type": "button", "id": "download-labels"})
    counter = element(
        "span",
        text(f"0 of {plural(count, 'turn')} labelled"),
        attrs={"id": "label-count", "role": "status", "aria-live": "polite"},
    )
    bar = element("div", labeller + button + counter, cls="label-bar")
    listing = element("div", "", cls="label-items", attrs={"id": "label-items"})
    summary = element("summary", text(f"Label {plural(count, 'judged turn')}"))
    return element("details", summary + bar + listing, cls="label-view", attrs={"id": "label-view"})


def labelling(doc: ResultsDocument) -> str:
    """The section: the view and its data, or one line when no turn was judged."""
    items, left_out = _label_items(doc)
    title = element("h2", text(TITLE))
    if not items and not left_out:
        return element("section", title + element("p", text(NOTHING_TO_LABEL), cls="muted"), cls="labelling")
    intro = element(
        "p",
        text(
            f"{plural(len(items), 'judged turn')} with the judge's verdict filled in: agree, disagree or give your "
            f"score, then download {DOWNLOAD_NAME} and commit it beside the evals. Turns you leave are written "
            "unconfirmed and never count."
        ),
    )
    notes = "".join(element("p", text(note), cls="muted") for note in _notes(doc, items, left_out))
    data = json_for_script({"file": DOWNLOAD_NAME, "items": items})
    script = f'<script type="application/json" id="label-data">{data}</script>'
    hidden = element("noscript", element("p", text(NO_SCRIPT)))
    return element("section", title + intro + notes + hidden + _view(len(items)) + script, cls="labelling")
