"""What an agent depends on, observed in this process (``runners/workers/observe.py``): the files read and the folders
listed under the repository root through the audit hook, per task, and the repository modules their imports name.
The agents' own observation runs end to end in ``tests/compare/test_only_affected.py``."""

from __future__ import annotations

import asyncio
import contextlib
import glob
import importlib
import importlib.machinery
import os
import pkgutil
import sqlite3
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from adk_eval_gate.runners.agents import AgentRef
from adk_eval_gate.runners.workers import observe


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "prompts").mkdir(parents=True)
    (repo / "prompts" / "a.txt").write_text("Be brief.", encoding="utf-8")
    (repo / "prompts" / "b.txt").write_text("Be kind.", encoding="utf-8")
    observe.install(repo)
    return repo


@pytest.fixture
def importable(root: Path) -> Iterator[Path]:
    """The repository on sys.path; the modules imported from it are forgotten afterwards."""
    sys.path.insert(0, str(root))
    before = set(sys.modules)
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        for name in set(sys.modules) - before:
            del sys.modules[name]
        importlib.invalidate_caches()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_files_read_and_folders_listed_under_the_root_are_recorded_and_nothing_else(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = write(tmp_path / "elsewhere.txt", "outside the repository")
    monkeypatch.chdir(root)
    with observe.recording() as used:
        Path("prompts/a.txt").read_text(encoding="utf-8")  # relative to the working directory
        elsewhere.read_text(encoding="utf-8")
        (root / "written.txt").write_text("an output, not an input", encoding="utf-8")
        with open(root / "prompts" / "b.txt", "r+", encoding="utf-8"):  # read and written: read
            pass
        sorted(os.listdir(root / "prompts"))
    assert observe.repository_files(used, root) == {"prompts/a.txt", "prompts/b.txt", "prompts/"}


def test_nothing_is_recorded_outside_a_recording(root: Path) -> None:
    (root / "prompts" / "a.txt").read_text(encoding="utf-8")
    with observe.recording() as used:
        pass
    assert used == set()


def test_each_task_records_its_own_reads_and_another_thread_s_count_for_every_recording(root: Path) -> None:
    async def case_run(name: str, both_reading: asyncio.Event, done: asyncio.Event) -> set[str]:
        with observe.recording() as used:
            (root / "prompts" / f"{name}.txt").read_text(encoding="utf-8")
            both_reading.set()
            await done.wait()
        return used

    async def main() -> tuple[set[str], set[str]]:
        first_in, second_in, done = asyncio.Event(), asyncio.Event(), asyncio.Event()
        first = asyncio.ensure_future(case_run("a", first_in, done))
        second = asyncio.ensure_future(case_run("b", second_in, done))
        await first_in.wait()
        await second_in.wait()
        reader = threading.Thread(target=lambda: os.listdir(root / "prompts"))  # no context: it counts for both
        reader.start()
        reader.join()
        done.set()
        return await first, await second

    first, second = asyncio.run(main())
    assert observe.repository_files(first, root) == {"prompts/a.txt", "prompts/"}
    assert observe.repository_files(second, root) == {"prompts/b.txt", "prompts/"}


def test_a_cached_module_is_its_source_and_virtualenvs_and_tool_folders_are_left_out(root: Path) -> None:
    cached = root / "tools" / "__pycache__" / f"weather.{sys.implementation.cache_tag}.pyc"
    recorded = [
        str(cached),
        str(root / ".venv" / "lib" / "site.py"),
        str(root / "node_modules" / "x" / "index.js"),
        str(root.parent / "outside.py"),
        os.path.join(str(root / "prompts"), ""),
    ]
    assert observe.repository_files(recorded, root) == {"tools/weather.py", "prompts/"}


def test_importing_records_the_module_files_but_not_the_folders_the_import_system_lists(importable: Path) -> None:
    """The import system's listings are not the agent's: what it found is, and the package folder of the same
    name that would have come before a module it found (``obs_pkg_one/tools/``, absent)."""
    write(importable / "obs_pkg_one" / "__init__.py", "from . import tools\n")
    write(importable / "obs_pkg_one" / "tools.py", "VALUE = 1\n")
    with observe.recording() as used:
        importlib.import_module("obs_pkg_one")
    assert observe.repository_files(used, importable) == {
        "obs_pkg_one/__init__.py",
        "obs_pkg_one/tools.py",
        "obs_pkg_one/tools",
    }


def test_the_imports_of_the_observed_files_are_followed_when_another_agent_imported_them_first(
    importable: Path,
) -> None:
    """Agent B imports a module that agent A imported before: B's import opens nothing, its import statements
    (a function's too, relative ones too) still name it."""
    write(importable / "obs_common" / "__init__.py", "")
    write(importable / "obs_common" / "tools.py", "from .helpers import shout\n")
    write(importable / "obs_common" / "helpers.py", "def shout(text):\n    return text.upper()\n")
    write(importable / "obs_common" / "late.py", "LATE = True\n")
    write(importable / "obs_a" / "__init__.py", "from . import agent\n")
    write(importable / "obs_a" / "agent.py", "from obs_common.tools import shout\n")
    write(importable / "obs_b" / "__init__.py", "from . import agent\n")
    write(
        importable / "obs_b" / "agent.py",
        "from obs_common import tools\n\n\ndef tool():\n    import obs_common.late\n    return obs_common.late.LATE\n",
    )
    inputs = observe.AgentInputs(importable)
    agents = {name: AgentRef("folder", str(importable / name), name) for name in ("obs_a", "obs_b")}
    for name, ref in agents.items():
        with observe.recording() as used:
            importlib.import_module(name)
        inputs.imported(ref, used)
    importlib.import_module("obs_common.late")  # imported by a run of another agent
    common = {"obs_common/__init__.py", "obs_common/tools.py", "obs_common/helpers.py"}
    common |= {"obs_common/tools", "obs_common/helpers"}  # package folders of those names would come first
    assert set(inputs.of_run(agents["obs_a"], set())) == {"obs_a/__init__.py", "obs_a/agent.py", "obs_a/agent", *common}
    assert set(inputs.of_run(agents["obs_b"], set())) == {
        "obs_b/__init__.py",
        "obs_b/agent.py",
        "obs_b/agent",
        *common,
        "obs_common/late.py",
    }


def test_a_file_one_run_read_counts_for_the_agent_s_later_runs(root: Path) -> None:
    """An agent may read a prompt once and keep it: its later runs in the process depend on it all the same."""
    inputs = observe.AgentInputs(root)
    ref = AgentRef("folder", str(root / "agent_x"), "agent_x")
    inputs.imported(ref, set())
    with observe.recording() as first:
        (root / "prompts" / "a.txt").read_text(encoding="utf-8")
    assert inputs.of_run(ref, first) == ["prompts/a.txt"]
    assert inputs.of_run(ref, set()) == ["prompts/a.txt"]
    assert inputs.of_run(AgentRef("folder", str(root / "agent_y"), "agent_y"), set()) == []
    with observe.recording() as again:  # the same file again, then another: the list grows only with the other
        (root / "prompts" / "a.txt").read_text(encoding="utf-8")
    found = inputs.of_run(ref, again)
    assert found == ["prompts/a.txt"]
    found.append("changed by the caller")  # each run gets its own list
    with observe.recording() as other:
        (root / "prompts" / "b.txt").read_text(encoding="utf-8")
    assert inputs.of_run(ref, other) == ["prompts/a.txt", "prompts/b.txt"]
    assert inputs.of_run(ref, set()) == ["prompts/a.txt", "prompts/b.txt"]


def test_an_agent_imported_again_is_found_again_even_with_as_many_files(root: Path) -> None:
    inputs = observe.AgentInputs(root)
    ref = AgentRef("folder", str(root / "agent_x"), "agent_x")
    inputs.imported(ref, {str(root / "prompts" / "a.txt")})
    assert inputs.of_run(ref, set()) == ["prompts/a.txt"]
    inputs.imported(ref, {str(root / "prompts" / "b.txt")})  # as many files: of_run must not answer from before
    assert inputs.of_run(ref, set()) == ["prompts/b.txt"]


def test_a_file_read_through_symbolic_links_records_each_link_and_what_it_leads_to(root: Path) -> None:
    """A link to a file, a file in a linked folder, a chain of links: a change to any of them or to the target
    changes what the agent read."""
    write(root / "shared" / "prompts" / "a.txt", "Be brief.")
    (root / "linked").symlink_to("shared/prompts")
    (root / "first.txt").symlink_to("second.txt")
    (root / "second.txt").symlink_to("linked/a.txt")
    with observe.recording() as used:
        (root / "linked" / "a.txt").read_text(encoding="utf-8")
        (root / "first.txt").read_text(encoding="utf-8")
        os.listdir(root / "linked")
    assert observe.repository_files(used, root) == {
        "linked/a.txt",
        "linked",
        "shared/prompts/a.txt",
        "first.txt",
        "second.txt",
        "linked/",
        "shared/prompts/",
    }


@pytest.mark.timeout(30)
def test_symbolic_link_loops_and_links_out_of_the_repository_end_the_resolution(root: Path, tmp_path: Path) -> None:
    (root / "loop_a").symlink_to("loop_b")
    (root / "loop_b").symlink_to("loop_a")
    (root / "self").symlink_to("self")
    write(tmp_path / "outside" / "data.txt", "elsewhere")
    (root / "out").symlink_to(tmp_path / "outside")
    (root / "deep").symlink_to("out/../../..")
    with observe.recording() as used:
        for name in ("loop_a/x.txt", "self", "out/data.txt", "deep/etc/passwd"):
            with contextlib.suppress(OSError):
                (root / name).read_bytes()
    assert observe.repository_files(used, root) == {
        "loop_a/x.txt",
        "loop_a",
        "loop_b",
        "self",
        "out/data.txt",
        "out",
        "deep/etc/passwd",
        "deep",
    }


def test_a_listing_of_the_root_is_recorded_as_dot_slash(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(root)
    with observe.recording() as used:
        glob.glob("*.md")
    assert observe.repository_files(used, root) == {"./"}


def test_existence_checks_are_recorded_and_os_stat_is_itself_again_after_the_recording(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(root)
    before = os.stat, os.lstat, os.access
    with observe.recording() as used:
        os.path.exists("flags/enabled")
        Path("flags/other").is_file()
        os.path.islink(root / "prompts" / "a.txt")
        os.access("prompts/b.txt", os.R_OK)
        os.stat(0)  # a file descriptor: its file was recorded when it was opened
    assert (os.stat, os.lstat, os.access) == before
    assert observe.repository_files(used, root) == {"flags/enabled", "flags/other", "prompts/a.txt", "prompts/b.txt"}
    with observe.recording() as idle:
        pass
    os.path.exists(root / "after.txt")
    assert idle == set()


def test_an_import_that_finds_nothing_records_what_would_have_answered_it(importable: Path) -> None:
    """``try: import overrides / except ImportError``: the module files and the package folder it looked for."""
    write(importable / "obs_optional" / "__init__.py", "try:\n    from . import extra\nexcept ImportError:\n    pass\n")
    with observe.recording() as used:
        with contextlib.suppress(ImportError):
            importlib.import_module("obs_overrides")
        importlib.import_module("obs_optional")
    found = observe.repository_files(used, importable)
    suffixes = importlib.machinery.all_suffixes()
    assert {"obs_overrides", *(f"obs_overrides{suffix}" for suffix in suffixes)} <= found
    assert {"obs_optional/extra", *(f"obs_optional/extra{suffix}" for suffix in suffixes)} <= found


def test_what_a_module_reads_at_import_counts_for_every_agent_that_imports_it(importable: Path) -> None:
    """The module runs once per process: the second agent's import reads nothing, and still depends on the file."""
    write(importable / "shared" / "settings.txt", "CHEERFUL")
    write(
        importable / "obs_shared" / "__init__.py",
        "from pathlib import Path\nSETTINGS = (Path(__file__).parent.parent / 'shared' / 'settings.txt').read_text()\n",
    )
    for name in ("obs_one", "obs_two"):
        write(importable / name / "__init__.py", "import obs_shared\n")
    inputs = observe.AgentInputs(importable)
    agents = {name: AgentRef("folder", str(importable / name), name) for name in ("obs_one", "obs_two")}
    for name, ref in agents.items():
        with observe.recording() as used:
            importlib.import_module(name)
        inputs.imported(ref, used)
    for ref in agents.values():
        assert "shared/settings.txt" in inputs.of_run(ref, set())


def test_a_sqlite_database_the_agent_connects_to_is_recorded(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(root)
    with observe.recording() as used:
        sqlite3.connect("db.sqlite").close()
        sqlite3.connect(f"file:{root / 'ro.sqlite'}?mode=rwc", uri=True).close()
        sqlite3.connect(":memory:").close()
    assert observe.repository_files(used, root) == {"db.sqlite", "ro.sqlite"}


def test_file_names_that_are_not_utf_8_are_recorded_as_results_json_spells_them(root: Path) -> None:
    odd = os.fsdecode(b"prompts/r\xe9sum\xe9.txt")
    write(root / odd, "text")
    with observe.recording() as used:
        (root / odd).read_text(encoding="utf-8")
    assert observe.repository_files(used, root) == {"prompts/r\\xe9sum\\xe9.txt"}


def test_a_plugin_loader_still_lists_the_modules_of_a_watched_folder(importable: Path) -> None:
    """The finders of the repository's folders are wrapped: ``pkgutil.iter_modules`` must list what they hold."""
    write(importable / "obs_plugins" / "__init__.py", "")
    write(importable / "obs_plugins" / "first.py", "")
    write(importable / "obs_plugins" / "second.py", "")
    package = importlib.import_module("obs_plugins")
    with observe.recording():
        listed = sorted(module.name for module in pkgutil.iter_modules(package.__path__))
    assert listed == ["first", "second"]
    assert "obs_plugins" in {module.name for module in pkgutil.iter_modules([str(importable)])}


def test_what_a_script_s_top_level_reads_counts_for_the_run_not_as_read_at_an_import(root: Path) -> None:
    """The entry point's top level is a ``<module>`` frame under the root too, but nothing is importing it: what the
    functions it calls read belongs to the case run that reads it, never to every agent as read at import."""
    from adk_eval_gate.runners.workers import observe_events

    write(root / "shared" / "settings.txt", "CHEERFUL")
    script = root / "run_evals.py"
    code = compile("def main():\n    return open(SETTINGS).read()\nRESULT = main()\n", str(script), "exec")
    before = dict(observe_events.module_reads)
    with observe.recording() as used:
        namespace: dict[str, object] = {"SETTINGS": str(root / "shared" / "settings.txt")}
        exec(code, namespace)
    assert namespace["RESULT"] == "CHEERFUL"
    assert observe.repository_files(used, root) == {"shared/settings.txt"}
    assert observe_events.module_reads == before
