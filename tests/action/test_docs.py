"""The README and the documentation site (docs/, mkdocs.yml) hold together without building the site: every page is
in the nav, every relative link and anchor resolves, every option of the command line has its row in the
command-line reference, and the README stays short. (`.ci/run` also builds the site with `mkdocs build --strict`.)

Anchors are GitHub's (`#in-process---runner-adk`, `#reporthtml`): mkdocs.yml gives the site the same ones through
pymdownx's slugify, so one link works on GitHub and on the site.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from adk_eval_gate.config.command_line import COMMANDS, build_parser
from adk_eval_gate.config.options import OPTIONS

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
REPOSITORY_URL = re.compile(r"https://github\.com/adk-eval-gate/adk-eval-gate/(?:blob|tree)/main/(.+)")
README_LIMIT = 30 * 1024
FENCED = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
LINK = re.compile(r"\]\(([^()\s]+)\)")
HEADING = re.compile(r"^#{1,6} +(.+?) *#*$", re.M)


def markdown_files() -> list[Path]:
    return [REPO / "README.md", *sorted(DOCS.glob("*.md"))]


def without_code(text: str) -> str:
    """The prose: fenced blocks and code spans removed, so a `[x](y)` or `# x` inside code is not read as Markdown."""
    return CODE_SPAN.sub("", FENCED.sub("", text))


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading (and pymdownx.slugs.slugify's, with case="lower")."""
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def headings(path: Path) -> list[str]:
    return HEADING.findall(FENCED.sub("", path.read_text(encoding="utf-8")))


def anchors(path: Path) -> set[str]:
    return {anchor(heading) for heading in headings(path)}


def link_problem(source: Path, target: str) -> str | None:
    """Why ``target``, a link in ``source``, leads nowhere (None: it resolves)."""
    repository_file = REPOSITORY_URL.fullmatch(target.split("#", 1)[0])
    if repository_file:
        return None if (REPO / repository_file.group(1)).exists() else "no such file in the repository"
    if re.match(r"[a-z][a-z0-9+.-]*:", target):
        return None  # another site: not checked (no network)
    path_part, _, fragment = target.partition("#")
    resolved = (source.parent / path_part).resolve() if path_part else source
    if not resolved.exists():
        return "no such file"
    if source.is_relative_to(DOCS) and not resolved.is_relative_to(DOCS):
        return "the site has only docs/: link a file outside it by its address on GitHub"
    if fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
        return f"{resolved.relative_to(REPO)} has no heading with the anchor #{fragment}"
    return None


@pytest.mark.parametrize("path", markdown_files(), ids=lambda path: path.relative_to(REPO).as_posix())
def test_every_relative_link_and_anchor_resolves(path: Path) -> None:
    text = without_code(path.read_text(encoding="utf-8"))
    problems = [f"{target}: {why}" for target in LINK.findall(text) if (why := link_problem(path, target))]
    assert not problems, f"{path.relative_to(REPO)} has links that lead nowhere:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", markdown_files(), ids=lambda path: path.relative_to(REPO).as_posix())
def test_headings_of_a_page_have_distinct_anchors(path: Path) -> None:
    """GitHub numbers a repeated anchor `-1`, MkDocs `_1`: a link to either works on one of them only."""
    found = [anchor(heading) for heading in headings(path)]
    assert len(found) == len(set(found)), sorted({name for name in found if found.count(name) > 1})


@pytest.mark.parametrize("path", markdown_files(), ids=lambda path: path.relative_to(REPO).as_posix())
def test_no_table_cell_holds_a_pipe_in_code(path: Path) -> None:
    """GitHub needs `\\|` for a pipe in a table's code span and shows `|`; MkDocs shows `\\|`: write a metavar."""
    rows = [line for line in FENCED.sub("", path.read_text(encoding="utf-8")).splitlines() if line.startswith("|")]
    assert not [row for row in rows if any("|" in code for _, code in CODE_SPAN.findall(row))]


class _NavLoader(yaml.SafeLoader):
    """mkdocs.yml with its `!!python/...` tags (the toc's slugify) read as nothing."""


_NavLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def nav_pages(entries: list[Any]) -> list[str]:
    pages: list[str] = []
    for entry in entries:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            pages.extend(nav_pages(value) if isinstance(value, list) else [value])
    return pages


def test_every_page_of_docs_is_in_the_nav_once() -> None:
    config = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_NavLoader)
    pages = nav_pages(config["nav"])
    assert sorted(pages) == sorted(path.name for path in DOCS.glob("*.md"))
    assert len(pages) == len(set(pages))
    assert config["theme"]["name"] == "material" and config["docs_dir"] == "docs"
    assert pages[0] == "index.md"


def test_the_site_builds_offline_and_fails_on_a_broken_link() -> None:
    config = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_NavLoader)
    plugins = [next(iter(plugin)) if isinstance(plugin, dict) else plugin for plugin in config["plugins"]]
    assert plugins == ["search"], "a plugin that fetches (social cards, privacy) breaks the offline build"
    assert config["theme"]["font"] is False  # no web fonts from another host
    for checks in config["validation"].values():
        assert set(checks.values()) == {"warn"}, "under --strict every warning fails the build"
    ignored = (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert f"{config['site_dir']}/" in ignored


def test_readme_is_under_30_kb_and_links_into_every_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode()) < README_LIMIT
    linked = {target.split("#")[0] for target in LINK.findall(without_code(readme))}
    assert {f"docs/{path.name}" for path in DOCS.glob("*.md")} <= linked


def quick_start(text: str) -> str:
    block = re.search(r"## Quick start\n.*?```bash\n(.*?)```", text, re.S)
    assert block, "no quick start with its commands"
    return block.group(1)


def test_the_two_commands_of_a_fresh_machine_open_the_readme_and_the_site() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    commands = quick_start(readme).splitlines()
    install_and_run = 'python3 -m venv .venv && .venv/bin/pip install -e ".[adk]" && .venv/bin/adk-eval-gate run '
    assert install_and_run + "examples/weather_agent" in commands
    assert "bash .ci/test" in commands
    assert readme.index("## Quick start") < readme.index("## The GitHub Action")
    assert quick_start((DOCS / "index.md").read_text(encoding="utf-8")).splitlines() == commands


def reference_rows() -> dict[str, list[str]]:
    """docs/cli.md's option tables: the first word of each row's first code span -> the row's cells."""
    rows: dict[str, list[str]] = {}
    for line in (DOCS / "cli.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        option = re.match(r"`([^` ]+)", cells[0]) if line.startswith("|") else None
        if option and len(cells) == 4:
            name = option.group(1)
            assert not (name.startswith("--") and name in rows), f"{name} has two rows in docs/cli.md"
            rows[name] = cells
    return rows


def parser_flags() -> dict[str, set[str]]:
    """Every flag of the command line -> the commands that take it ("" for the program's own, --version)."""
    parser = build_parser()
    flags: dict[str, set[str]] = {}
    parsers = {"": parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            parsers.update(action.choices)
    for command, command_parser in parsers.items():
        for action in command_parser._actions:
            for flag in action.option_strings:
                if flag not in {"-h", "--help"}:
                    flags.setdefault(flag, set()).add(command)
    return flags


def test_the_command_line_reference_lists_every_option_with_its_commands_and_input() -> None:
    rows = reference_rows()
    for option in OPTIONS:
        key = "PATH[:CASE,...]" if option.field == "paths" else option.flag  # paths are the arguments of run
        assert key in rows, f"docs/cli.md has no row for {key}"
        _, commands, action_input, meaning = rows[key]
        assert set(re.split(r",\s*", commands)) == set(option.commands), key
        assert action_input == (f"`{option.input}`" if option.input else "– (command line only)"), key
        assert meaning, key
    flags = parser_flags()
    for flag, commands in flags.items():
        assert flag in rows, f"docs/cli.md has no row for {flag}"
        assert all(command in rows[flag][1] for command in commands if command), flag
    documented = {key for key in rows if key.startswith("--")}
    assert documented <= set(flags), f"docs/cli.md documents options that do not exist: {documented - set(flags)}"


def commands_table(text: str) -> str:
    match = re.search(r"^\| command \| what it does \|\n(?:\|.*\n)+", text, re.M)
    assert match, "no table of the commands"
    return match.group(0)


def test_the_readme_shows_the_commands_table_of_the_reference() -> None:
    readme = commands_table((REPO / "README.md").read_text(encoding="utf-8"))
    assert readme == commands_table((DOCS / "cli.md").read_text(encoding="utf-8"))
    commands = re.findall(r"^\| `adk-eval-gate (\w+)", readme, re.M)
    assert commands == [name for name, *_ in COMMANDS]


def ci_test_paragraph(text: str) -> str:
    """The paragraph that says what ``.ci/test`` does, whitespace collapsed and its link's target dropped."""
    found = re.search(r"^The second command, \[`\.ci/test`\]\([^)]+\)(.*?)\n(?:\n|<!--)", text, re.S | re.M)
    assert found, "no paragraph on .ci/test"
    return " ".join(found.group(1).split())


def test_the_readme_and_the_site_describe_ci_test_alike_and_as_it_does() -> None:
    """The quick start of the README and of docs/index.md say the same of ``.ci/test``, and what they say is what
    the script does: the extra it installs, the JavaScript it pins, the pytest arguments it runs without any."""
    readme = ci_test_paragraph((REPO / "README.md").read_text(encoding="utf-8"))
    assert readme == ci_test_paragraph((DOCS / "index.md").read_text(encoding="utf-8"))
    script = (REPO / ".ci" / "test").read_text(encoding="utf-8")
    [extra] = re.findall(r"^bash \.ci/venv\.sh (\w+)", script, re.M)
    assert f"with the {extra} extra" in readme
    [defaults] = re.findall(r"^\s*set -- (.+)$", script, re.M)
    assert f"runs the whole suite with `python -m pytest {defaults}`; arguments replace `{defaults}`" in readme
    assert "npm ci" in script and "`npm ci` in `tests/js`" in readme
    pinned = json.loads((REPO / "tests" / "js" / "package.json").read_text(encoding="utf-8"))["dependencies"]
    assert all(name.lower() in readme.lower() for name in pinned), (sorted(pinned), readme)
    assert "ADK_EVAL_GATE_REQUIRE_BROWSER=1" in script and "the browser tests must run" in readme


def _requirement_name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower()


def test_the_pytest_page_installs_pytest_with_the_package_through_an_extra() -> None:
    """The plugin imports pytest, which the package's own dependencies do not include: every install command of
    docs/pytest.md (and the README's mention of the plugin) names extras that bring it."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras: dict[str, list[str]] = project["optional-dependencies"]
    assert "pytest" not in {_requirement_name(r) for r in project["dependencies"]}
    assert "pytest" in {_requirement_name(r) for r in extras["pytest"]}
    page = (DOCS / "pytest.md").read_text(encoding="utf-8")
    installs = re.findall(r"pip install \"adk-eval-gate(?:\[([\w,]+)\])?", page)
    assert installs, "docs/pytest.md says nothing of how to install the plugin"
    for named in installs:
        brought = {_requirement_name(r) for extra in named.split(",") if extra for r in extras[extra]}
        assert "pytest" in brought, f"pip install adk-eval-gate[{named}] does not install pytest"
    assert "adk-eval-gate[adk,pytest]" in (REPO / "README.md").read_text(encoding="utf-8")
    assert "import pytest" in (REPO / "src" / "adk_eval_gate" / "pytest" / "plugin.py").read_text(encoding="utf-8")


def test_the_minimal_eval_set_and_criteria_of_the_eval_files_page_load_in_adk_and_the_gate(tmp_path: Path) -> None:
    """The annotated example a new user copies: without its comments, ADK's own EvalSet model and the gate's
    loader take it, and its test_config.json is valid criteria."""
    from google.adk.evaluation.eval_set import EvalSet

    from adk_eval_gate.inputs.configs import ConfigSource, load_config
    from adk_eval_gate.inputs.load import load_eval_file

    section = (DOCS / "eval-files.md").read_text(encoding="utf-8").split("## A minimal eval set and its criteria")[1]
    annotated, config = re.findall(r"^```(?:text|json)\n(.*?)^```", section, re.M | re.S)[:2]
    plain = re.sub(r"\s*//[^\n]*", "", annotated)
    EvalSet.model_validate_json(plain)
    (tmp_path / "weather.evalset.json").write_text(plain, encoding="utf-8")
    loaded = load_eval_file(tmp_path / "weather.evalset.json", display="weather.evalset.json")
    [case] = loaded.eval_set.eval_cases
    assert case.eval_id == "paris_then_london" and len(case.conversation or []) == 2
    (tmp_path / "test_config.json").write_text(config, encoding="utf-8")
    criteria = load_config(ConfigSource("folder", tmp_path / "test_config.json"), root=tmp_path)
    assert [metric.name for metric in criteria.metrics][:2] == ["tool_trajectory_avg_score", "response_match_score"]
    assert criteria.warnings == []
