"""Shared fixtures: example files and a helper to run the CLI in-process or as a subprocess."""

from __future__ import annotations

import functools
import gc
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests import browser as browsers
from tests import mermaid

# Bytecode caches for our modules, Hypothesis's (which pytest rewrites, as a plugin's) and pytest's rewritten test
# modules, whatever PYTHONDONTWRITEBYTECODE says: compiling them again on every run is a third of the fast tier's
# time (tests/README.md). Hypothesis is imported below this line for that reason.
sys.dont_write_bytecode = False


def _cache_the_modules_imported_before() -> None:
    """Writes the missing bytecode caches of the modules imported before the line above (pytest, its plugins and
    their dependencies), which PYTHONDONTWRITEBYTECODE kept pytest from writing: each pytest process, and each
    xdist worker, compiled them again at its start (about a second of CPU)."""
    import contextlib
    import py_compile

    for module in list(sys.modules.values()):
        spec = getattr(module, "__spec__", None)
        source, cached = getattr(spec, "origin", None), getattr(spec, "cached", None)
        if source and cached and source.endswith(".py") and not os.path.exists(cached):
            with contextlib.suppress(OSError, py_compile.PyCompileError):  # a read-only install stays as it is
                py_compile.compile(source, cfile=cached, doraise=True)


_cache_the_modules_imported_before()


def _no_wall_clock_profile() -> None:
    """No test fails because a loaded machine is slow: Hypothesis's examples have no deadline (200 ms by default),
    and its health check on the time taken to generate them is off."""
    from hypothesis import HealthCheck, settings

    settings.register_profile("no-wall-clock", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("no-wall-clock")


_no_wall_clock_profile()

# The suite's heap holds hundreds of thousands of long-lived objects (pytest's items, google-adk, google-genai,
# pydantic's schemas), and each full sweep of the collector walks all of them: at the default thresholds the
# fast tier spent about a tenth of its CPU in a dozen such sweeps. A longer young generation, as the gate's own
# processes use (``support.collector``), and rarer sweeps of the older ones keep the short-lived objects of a test
# out of the oldest generation; the per-test fixture below restores these thresholds after a test changed them.
gc.set_threshold(50_000, 20, 100)

if TYPE_CHECKING:
    from playwright.sync_api import Browser

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"

collect_ignore = ["fixtures"]  # other projects' test modules among the real files kept there (fixtures/README.md)


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


# A CLI run of the tests is neither an action step nor a debugging session unless a test says so.
FOREIGN_VARIABLES = ("INPUT_", "GITHUB_", "RUNNER_", "ADK_EVAL_GATE_DEBUG")


def run_cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Runs ``python -m adk_eval_gate`` in a subprocess (a real process: exit code, stdout, no traceback)."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(FOREIGN_VARIABLES)}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "adk_eval_gate", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def gate_in_process(
    monkeypatch: pytest.MonkeyPatch,
    *args: str,
    cwd: Path,
    env: dict[str, str] | None = None,
    fresh: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """``adk-eval-gate ARGS`` as ``run_cli`` runs it, but in this process (``cli.main``, unsupervised), for the
    tests whose point is not the process boundary: the start of a process that imports the gate, ADK and the
    judges' SDKs is seconds of CPU each time. What the command and the code it runs print, on ``sys.stdout``,
    ``sys.stderr`` or file descriptors 1 and 2, goes through its console to the captured stdout; ``stderr`` is what
    reached ``sys.stderr`` outside of it. The environment, the working folder and ``sys.path`` are restored
    afterwards; modules the run imported (an agent's) stay imported, except the packages named in ``fresh`` (the
    test's agents, which it may have rewritten since), which are imported again from their files."""
    import contextlib
    import io

    from adk_eval_gate import cli

    for name in [name for name in os.environ if name.startswith(FOREIGN_VARIABLES)]:
        monkeypatch.delenv(name)
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    for name in [name for name in list(sys.modules) if name.split(".")[0] in fresh]:  # a server thread may import
        del sys.modules[name]
    out, err = io.StringIO(), io.StringIO()
    with monkeypatch.context() as inside:
        inside.chdir(cwd)
        inside.setattr(sys, "path", list(sys.path))  # what the run appends for agents and metrics goes with it
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(list(args))  # a run settles the heap for its case runs: _collector_as_it_was undoes it
    return subprocess.CompletedProcess(["adk-eval-gate", *args], code, out.getvalue(), err.getvalue())


@pytest.fixture
def cli_in_process(monkeypatch: pytest.MonkeyPatch) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``cli_in_process(*args, cwd=..., env=...)``: ``gate_in_process`` with this test's monkeypatch; called as
    ``run_cli`` is."""
    return functools.partial(gate_in_process, monkeypatch)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty repository folder (has .git, so config lookup stops here)."""
    (tmp_path / ".git").mkdir()
    return tmp_path


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Closes the session's Chromium, if a test started it. With ``ADK_EVAL_GATE_IMPORTED=FILE``, lists the
    package's modules this test session imported (``bench/fast_tier.py`` checks that the fast tier reaches every
    module)."""
    browsers.shutdown()
    target = os.environ.get("ADK_EVAL_GATE_IMPORTED")
    if target:
        imported = sorted(name for name in sys.modules if name == "adk_eval_gate" or name.startswith("adk_eval_gate."))
        Path(target).write_text("\n".join(imported) + "\n", encoding="utf-8")


SLOW_MODULE = "\npytestmark = pytest.mark.slow"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With ``-m "not slow"``, modules marked slow as a whole are not even imported (their imports, ADK's
    evaluators and agents among them, are most of the fast tier's time otherwise)."""
    if config.option.markexpr.replace(" ", "") != "notslow" or collection_path.suffix != ".py":
        return None
    if collection_path.name.startswith("test_") and SLOW_MODULE in collection_path.read_text(encoding="utf-8"):
        return True
    return None


@pytest.fixture(autouse=True)
def _junit_files_are_valid(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every junit.xml a test writes under its tmp_path is checked against the JUnit schema afterwards."""
    folder: Path | None = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    for path in sorted(folder.rglob("junit*.xml")) if folder else []:
        junit_schema().validate(path.read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def _collector_as_it_was() -> Iterator[None]:
    """A test that runs the gate in this process leaves the heap settled, as ``run`` leaves its own process for its
    end (``support.collector``): the next test starts with nothing frozen, at the collector's thresholds before."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@functools.cache
def junit_schema() -> Any:
    import xmlschema

    return xmlschema.XMLSchema(str(Path(__file__).parent / "fixtures" / "junit.xsd"))


def validate_results(data: Any) -> None:
    """Raises jsonschema's ValidationError unless ``data`` matches schema/results.schema.json."""
    _results_validator().validate(data)


@functools.cache
def _results_validator() -> Any:
    """Built once: ``jsonschema.validate`` checks and compiles the schema on every call (a third of a second)."""
    import jsonschema

    schema = json.loads((REPO / "schema" / "results.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    return validator(schema)


BROWSER_FIXTURES = {"browser", "mermaid_errors"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that use the browser fixtures are marked ``browser`` (``-m browser`` selects them) and run last.

    Last, because while Playwright's sync API is alive it marks the main thread's asyncio loop as running, so an
    ``asyncio.run()`` of a later test would fail; the session's one browser is closed when the session ends.
    """
    for item in items:
        if BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)  # stable: the order is kept


@pytest.fixture
def browser() -> Browser:
    """The session's headless Chromium (tests/browser.py): skipped when missing, failed when CI requires it."""
    return browsers.shared_browser()


@pytest.fixture
def mermaid_errors() -> Callable[[list[str]], list[str]]:
    """``mermaid_errors(blocks)``: the real Mermaid library's message for each bad block (tests/mermaid.py)."""
    mermaid.mermaid_page()  # skipped or failed here, before the test, when Chromium or Mermaid is missing
    return mermaid.mermaid_errors


def pytest_unconfigure(config: pytest.Config) -> None:
    """The session is over: what it holds is left out of the collector's last sweeps as the interpreter exits, which
    took two seconds of CPU after a session of the fast tier (in each xdist worker too)."""
    gc.freeze()
