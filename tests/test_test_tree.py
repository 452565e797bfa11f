"""The test tree itself: it mirrors the package (tests/README.md, "Layout") and says behaviours, not their history."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SRC = TESTS.parent / "src" / "adk_eval_gate"
ACROSS_THE_STAGES = {"hostile", "action"}  # the adversarial reviews' regressions; action.yml and the container
AT_THE_ROOT = {
    "test_cli.py",  # cli.py is at the package's root
    "test_architecture.py",
    "test_code_shape.py",
    "test_names_and_dead_code.py",
    "test_names_in_docs.py",
    "test_test_tree.py",
    "test_browser_helpers.py",  # the shared browser and Mermaid helpers beside it
}
ISSUE_CITATION = re.compile(r"\b(?:issue|review)\s*#?\s*\d+", re.IGNORECASE)


def _test_modules() -> list[Path]:
    return sorted(path for path in TESTS.rglob("test_*.py") if "fixtures" not in path.relative_to(TESTS).parts)


def misplaced(tests: Path, src: Path, modules: list[Path]) -> list[str]:
    """The test modules that are neither in a folder named as a package of ``src`` nor allowed where they are."""
    packages = {path.parent.relative_to(src).as_posix() for path in src.rglob("__init__.py")} - {"."}
    found = []
    for module in modules:
        folder = module.parent.relative_to(tests).as_posix()
        if folder == ".":
            allowed = module.name in AT_THE_ROOT
        else:
            allowed = folder in packages or folder.split("/")[0] in ACROSS_THE_STAGES
        if not allowed:
            found.append(module.relative_to(tests).as_posix())
    return found


def citations(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if ISSUE_CITATION.search(line)]


def test_every_test_module_is_in_the_folder_of_the_package_it_tests() -> None:
    assert misplaced(TESTS, SRC, _test_modules()) == []


def test_the_layout_check_sees_a_test_module_outside_the_mirror(tmp_path: Path) -> None:
    src, tests = tmp_path / "src", tmp_path / "tests"
    for package in ("verdict", "runners/workers"):
        (src / package).mkdir(parents=True)
        (src / package / "__init__.py").touch()
    modules = [
        tests / "verdict" / "test_rules.py",
        tests / "runners" / "workers" / "test_pool.py",
        tests / "hostile" / "test_inputs.py",
        tests / "test_cli.py",
        tests / "test_rules.py",  # a package's test at the root
        tests / "verdicts" / "test_rules.py",  # no such package
    ]
    assert misplaced(tests, src, modules) == ["test_rules.py", "verdicts/test_rules.py"]


def test_no_test_says_which_issue_or_review_found_what_it_checks() -> None:
    found = {
        f"{module.relative_to(TESTS)}: {line}"
        for module in [*_test_modules(), *TESTS.glob("*.py")]
        if module.name != Path(__file__).name
        for line in citations(module.read_text(encoding="utf-8"))
    }
    assert found == set(), "say the behaviour instead"


def test_the_citation_check_sees_an_issue_number_and_leaves_behaviours_alone() -> None:
    text = 'def test_x():\n    """Issue 20, point 9: the comment."""\n    # see review 3, issue #21\n'
    assert citations(text) == ['"""Issue 20, point 9: the comment."""', "# see review 3, issue #21"]
    assert citations('"""An issue with 2 cases; a run of 3 points about #12."""') == []
