"""What agents open and what a baseline records cannot break ``--only-affected``.

A file an agent opens whose name is not UTF-8 is a case input spelled as git spells it (a lone surrogate, which
results.json cannot hold, would be an internal error after the runs), so a change to that file still touches the
case. A baseline's commit reaches git only when it is a
commit id, never as an option; a baseline's carried markers and reasons render as text, linked only to a run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adk_eval_gate.model.results import AffectedRun, Carried, CaseInputs
from adk_eval_gate.report import carried, comment
from adk_eval_gate.runners.workers import observe
from adk_eval_gate.selection import affected, checkout
from adk_eval_gate.selection.git_changes import Changed, Unknown, changed_since
from tests.git_repos import repository_with_one_commit
from tests.report.builders import case, document, metric

BAD_NAME = b"menu-\xff.txt"  # Latin-1, not UTF-8


def test_a_file_name_that_is_not_utf8_is_recorded_as_text_results_json_can_hold(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    path = os.path.join(os.fsencode(root / "data"), BAD_NAME)
    with open(path, "wb") as file:
        file.write(b"soup")
    observe.install(root)
    with observe.recording() as used, open(path, "rb") as file:
        file.read()
    files = observe.repository_files(used, root)
    assert files == {"data/menu-\\xff.txt"}
    CaseInputs(files=sorted(files), observed=True).model_dump_json()  # before: PydanticSerializationError


@pytest.mark.slow  # git as a process
def test_git_spells_a_changed_file_name_as_it_was_recorded(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    base = repository_with_one_commit(root)
    with open(os.path.join(os.fsencode(root), BAD_NAME), "wb") as file:
        file.write(b"soup")
    changed = changed_since(base, root=root, fetch=False)
    assert changed == Changed(frozenset({"menu-\\xff.txt"}))
    states = checkout.survey(["menu-\\xff.txt"], root=root)
    assert states == {"menu-\\xff.txt": checkout.FILE}  # the checkout finds it again from that spelling
    inputs = CaseInputs(files=["menu-\\xff.txt"], settings="s", observed=True)
    now = affected.Checkout(changed=changed.files, states=states, tracked=frozenset())
    assert affected.touched(inputs, now) == "menu-\\xff.txt changed"


@pytest.mark.slow  # git as a process
def test_a_baseline_commit_that_is_a_git_option_never_reaches_git(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    repository_with_one_commit(root)
    marker = tmp_path / "pwned"
    for forged in (f"--upload-pack=touch {marker}", "--output=/tmp/x", "HEAD~1", "a" * 65):
        found = changed_since(forged, root=root, fetch=True)
        assert isinstance(found, Unknown) and found.reason.endswith("is not a commit id"), forged
    assert not marker.exists()


def test_a_forged_carried_marker_and_reason_render_as_text_and_link_only_to_a_run() -> None:
    forged = Carried(
        sha="not a sha ![x](https://evil.example/i.png)",
        run_url="https://evil.example/phish",
        description="main [click](https://evil.example) <img src=x>",
    )
    doc = document([case("a1", [metric("response_match_score", 0.9)]).model_copy(update={"carried": forged})])
    reason = "@team please see <script>x</script> ::error::forged"
    run = doc.run.model_copy(update={"affected": AffectedRun(ran=0, carried=1), "pull_request": 7})
    text = comment.render(doc.model_copy(update={"run": run}))
    assert "evil.example/phish" not in text and "](https://evil.example)" not in text
    assert "<img" not in text and "&lt;img src\\=x&gt;" in text
    assert carried.origin_words(forged, markdown=False) == forged.description  # no sha that is not one
    everything = AffectedRun(ran=1, everything=reason)
    said = comment.render(doc.model_copy(update={"run": doc.run.model_copy(update={"affected": everything})}))
    assert "<script>" not in said and "@team" not in said
