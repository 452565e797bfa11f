"""action.yml, the settings, the outputs the tool writes, the README and the documentation pages (docs/) agree; the
image's inputs are pinned. (tests/action/test_docs.py keeps the pages' links, nav and option reference.)"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement

from adk_eval_gate.config import options
from adk_eval_gate.config.settings import Settings, build_settings, input_value
from adk_eval_gate.github.outputs import OUTPUT_NAMES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    return loaded


def readme_section(name: str) -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(rf"<!-- section:{name} -->(.*)<!-- /section:{name} -->", text, re.S)
    assert match, f"README.md has no {name} section"
    return match.group(1)


def docs_page(name: str) -> str:
    return (REPO / "docs" / f"{name}.md").read_text(encoding="utf-8")


def first_workflow(text: str, *, after: str = "") -> str:
    match = re.search(r"```yaml\n(.*?)```", text[text.index(after) :], re.S)
    assert match, f"no workflow after {after!r}"
    return match.group(1)


def table_rows(section: str, heading: str) -> list[str]:
    part = section.split(heading, 1)[1]
    return [line for line in part.splitlines()[1:] if line.startswith("| `")][: len(table_names(section, heading))]


def table_names(section: str, heading: str) -> list[str]:
    """The first-column names (in backticks) of the Markdown table under ``heading``."""
    part = section.split(heading, 1)[1]
    rows = []
    for line in part.splitlines()[1:]:
        if line.startswith("#"):
            break
        match = re.match(r"\|\s*`([^`]+)`\s*\|", line)
        if match:
            rows.append(match.group(1))
    return rows


def test_every_input_is_a_settings_option_and_every_option_an_input(action: dict[str, Any]) -> None:
    inputs = set(action["inputs"])
    assert inputs == set(options.ACTION_INPUTS)
    for name in inputs:
        assert name == name.lower() and "_" not in name, f"input {name!r} is not kebab-case"
        assert options.ACTION_INPUTS[name].field in Settings.model_fields


def test_every_input_reaches_its_setting_through_the_variable_github_sets(action: dict[str, Any]) -> None:
    """GitHub upper-cases the name and keeps hyphens: INPUT_NUM-RUNS."""
    for name in action["inputs"]:
        option = options.ACTION_INPUTS[name]
        variable = "INPUT_" + name.upper()
        assert input_value({variable: "x"}, option) == "x", variable
    settings = build_settings(
        "run",
        {},
        env={"INPUT_NUM-RUNS": "3", "INPUT_FAIL-ON-REGRESSION": "true", "INPUT_GATE-ID": "nightly", "INPUT_RUNNER": ""},
    )
    assert (settings.num_runs, settings.fail_on_regression, settings.gate_id, settings.runner) == (
        3,
        True,
        "nightly",
        "adk",
    )


def test_only_the_token_has_a_default_so_the_tool_owns_every_other_default(action: dict[str, Any]) -> None:
    defaults = {name: spec["default"] for name, spec in action["inputs"].items() if "default" in spec}
    assert defaults == {"github-token": "${{ github.token }}"}
    assert not any(spec.get("required") for spec in action["inputs"].values())


def test_descriptions_list_every_choice(action: dict[str, Any]) -> None:
    for name, spec in action["inputs"].items():
        for choice in options.ACTION_INPUTS[name].choices or ():
            assert choice in spec["description"], f"input {name!r} does not mention {choice!r}"


def test_outputs_are_exactly_what_the_tool_writes(action: dict[str, Any]) -> None:
    assert list(action["outputs"]) == list(OUTPUT_NAMES)
    assert all(spec.get("description") for spec in action["outputs"].values())


def test_readme_and_docs_document_every_input_and_output(action: dict[str, Any]) -> None:
    readme, page = readme_section("action"), docs_page("action")
    assert table_names(readme, "### Inputs") == table_names(page, "## Inputs") == list(action["inputs"])
    assert table_names(readme, "### Outputs") == table_names(page, "## Outputs") == list(action["outputs"])
    for heading in ("Inputs", "Outputs"):  # the same rows, but that the README links into docs/ from the root
        rows = [row.replace("](docs/", "](") for row in table_rows(readme, f"### {heading}")]
        assert rows == table_rows(page, f"## {heading}"), f"the README's and docs/action.md's {heading} differ"


def test_readme_and_docs_show_the_pull_request_gate_example_as_it_is() -> None:
    workflow = (REPO / "examples" / "workflows" / "pr-gate.yml").read_text(encoding="utf-8")
    for section in (readme_section("action"), docs_page("action")):
        assert first_workflow(section) == workflow
        for permission in ("contents: read", "pull-requests: write", "actions: read"):
            assert permission in section


def test_docs_show_the_openai_judge_example_as_it_is() -> None:
    workflow = (REPO / "examples" / "workflows" / "openai-judge.yml").read_text(encoding="utf-8")
    assert first_workflow(docs_page("judges"), after="## Judges on other providers") == workflow
    assert "OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}" in workflow and "litellm" in workflow


def test_docs_show_the_sharded_example_as_it_is() -> None:
    shown = first_workflow(docs_page("runners"), after="## Spreading a large suite over machines")
    assert shown == (REPO / "examples" / "workflows" / "sharded.yml").read_text(encoding="utf-8")


def test_every_install_of_the_cli_in_the_readme_and_docs_works_before_a_pypi_release() -> None:
    from adk_eval_gate import __version__

    tagged = f"git+https://github.com/adk-eval-gate/adk-eval-gate@v{__version__}"
    for text in (readme_section("cli"), docs_page("cli")):
        assert f'pip install "adk-eval-gate[adk] @ {tagged}"' in text
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.search(r"pip install \"?adk-eval-gate", line):  # the package, not the checkout (-e .)
                assert "git+https://" in line or "after the pypi release" in line.lower(), (path.name, line)


def test_the_license_is_the_one_pyproject_names() -> None:
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'license = "Apache-2.0"' in pyproject
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.lstrip().startswith("Apache License\n                           Version 2.0, January 2004")
    assert "END OF TERMS AND CONDITIONS" in text


EVALUATING_STEP = r"^\s*(- )?uses: adk-eval-gate/adk-eval-gate@|^\s*(run: )?adk-eval-gate (run|merge) "


def test_example_workflows_install_the_cli_from_a_release_tag_and_keep_the_junit_report() -> None:
    for path in sorted((REPO / "examples" / "workflows").glob("*.yml")):
        text = path.read_text(encoding="utf-8")
        for line in text.splitlines():
            if "pip install" in line and "adk-eval-gate" in line and not line.lstrip().startswith("#"):
                assert "git+https://github.com/adk-eval-gate/adk-eval-gate@v" in line, (path.name, line)
        evaluates = re.search(
            r"^\s*(- )?uses: adk-eval-gate/adk-eval-gate@|^\s*(run: )?adk-eval-gate (run|merge) ", text, re.M
        )
        if evaluates:  # users download the JUnit report from the run's artifacts
            assert "path: adk-eval-results/junit.xml" in text or "path: adk-eval-results/\n" in text, path.name


def test_runs_the_dockerfile_that_releases_replace_with_the_prebuilt_image(action: dict[str, Any]) -> None:
    assert action["runs"] == {"using": "docker", "image": "Dockerfile"}
    assert action["branding"]["icon"] and action["branding"]["color"]
    # release.yml rewrites exactly this line; it must stay as the sed expression expects
    lines = (REPO / "action.yml").read_text(encoding="utf-8").splitlines()
    assert lines.count("  image: Dockerfile") == 1
    release = (REPO / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    assert "s|^  image: Dockerfile$|  image: docker://${IMAGE}|" in release


IMAGE_PYTHON = re.search(r"^FROM python:(\d+\.\d+)-slim", (REPO / "Dockerfile").read_text(encoding="utf-8"), re.M)[1]


IMAGE_EXTRAS = ("adk", "a2a")  # the extras whose packages constraints/image.in puts into the image


def image_pins() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (REPO / "constraints" / "docker.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert re.fullmatch(r"[a-z0-9-]+", name) and re.fullmatch(r"[\w.+-]+", version), line
            pins[name] = version
    assert list(pins) == sorted(pins)
    return pins


def package_name(requirement: Requirement) -> str:
    return re.sub(r"[-_.]+", "-", requirement.name).lower()


def in_image_python(requirement: Requirement) -> bool:
    return requirement.marker is None or requirement.marker.evaluate({"python_version": IMAGE_PYTHON})


def test_image_dependencies_are_all_pinned_and_cover_the_package() -> None:
    pins = image_pins()
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    needed = [*project["dependencies"], *(text for extra in IMAGE_EXTRAS for text in extras[extra])]
    for requirement in filter(in_image_python, map(Requirement, needed)):
        name = package_name(requirement)
        assert name in pins, f"{name} (required in pyproject.toml) is not pinned: run python constraints/lock.py"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"{name}=={pins[name]} is not {requirement}"
        )
    for requirement in map(Requirement, extras["test"]):  # the image runs the versions the tests run
        name = package_name(requirement)
        if name in pins:
            assert requirement.specifier.contains(pins[name], prereleases=True), f"the image's {name} is not tested"


def test_the_image_installs_the_packages_of_its_extras() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    wanted = {package_name(Requirement(text)) for extra in IMAGE_EXTRAS for text in extras[extra]}
    lines = (REPO / "constraints" / "image.in").read_text(encoding="utf-8").splitlines()
    listed = {package_name(Requirement(line.split("#", 1)[0])) for line in lines if line.split("#", 1)[0].strip()}
    assert listed == wanted, "constraints/image.in lists other packages than the image's extras in pyproject.toml"


def test_dockerfile_is_multi_stage_and_runs_as_the_default_user() -> None:
    dockerfile = (REPO / "Dockerfile").read_text(encoding="utf-8")
    stages = re.findall(r"^FROM (\S+)", dockerfile, re.M)
    assert stages == ["python:3.11-slim", "python:3.11-slim"]
    final = dockerfile.rsplit("\nFROM ", 1)[1]
    assert "PYTHONUNBUFFERED=1" in final
    assert "constraints/docker.txt" in dockerfile
    assert not re.search(r"^USER ", dockerfile, re.M)
    assert 'ENTRYPOINT ["/usr/local/bin/adk-eval-gate-entrypoint"]' in final
    copied = re.findall(r"^COPY (?!--from)(.+) \S+$", dockerfile, re.M)
    allowed = (REPO / ".dockerignore").read_text(encoding="utf-8")
    for sources in copied:
        for source in sources.split():
            assert f"!{source}" in allowed, f"{source} is copied but .dockerignore leaves it out of the context"
