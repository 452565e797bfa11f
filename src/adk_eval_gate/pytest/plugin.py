"""The pytest plugin: ``pytest --adk-eval [PATHS]`` collects ADK eval files as tests, one per eval case.

Installed with the package (entry point ``pytest11``) and off unless ``--adk-eval`` is given: without it the
plugin only adds its options, and nothing else of the gate, nor google-adk, is imported. With it, each eval file
that ``run`` discovers (``inputs.formats``: ADK eval sets and legacy files, Vertex-style datasets, Agent Platform
datasets graded by their eval_config.yaml) is a collector whose items are its cases (``file::eval_id``); a file
given by path that is not for pytest (an ADK eval result) is one failing item saying why. Each item runs its case
``--adk-num-runs`` times through the gate's own stages (``session.CaseSession``, the agents in the gate's worker
processes) and fails with the gate's verdict. Held to the rules of ``adk-eval-gate run``: a case whose agent
crashed, exited, timed out or could not be imported is a pytest error (its runs happen in the item's setup), never
the end of pytest; an eval file that cannot be read (a FIFO, a link that loops) is a failing item naming it;
secrets are masked in every report of an eval item (its message, its captured output and logs, and so
``--junitxml``). Works with pytest-xdist: every worker process has its own session.
"""

from __future__ import annotations

import os
from collections.abc import Coroutine, Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

if TYPE_CHECKING:  # asyncio too: importing it would cost every pytest run of every project about 20 ms
    import asyncio

    from adk_eval_gate.inputs.plan import PlannedFile
    from adk_eval_gate.model.results import CaseResult
    from adk_eval_gate.pytest.case_session import CaseSession

T = TypeVar("T")
FILE_ITEM = "eval-file"  # the item that reports an eval file that cannot be loaded


class AdkEvalWarning(pytest.PytestWarning):
    """What the gate warns about in an eval file or its config (a key ADK ignores, a misspelt column)."""


class EvalCaseFailed(Exception):
    """An eval case that did not pass; its message is the whole report (no traceback is shown)."""


class EvalCaseError(EvalCaseFailed):
    """An eval case that could not be run to a verdict (the gate's ``error``), raised in the item's setup."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("adk-eval", "ADK agent evaluations (adk-eval-gate)")
    group.addoption(
        "--adk-eval",
        action="store_true",
        default=False,
        help="collect ADK eval files (*.test.json, *.evalset.json, *.evalset.jsonl, *-dataset.json) as tests, one per "
        "eval case",
    )
    group.addoption(
        "--adk-num-runs",
        type=int,
        default=2,
        metavar="N",
        help="runs of every eval case; each metric's mean over every turn of them must meet its threshold "
        "(default: 2, as ADK's AgentEvaluator)",
    )
    group.addoption(
        "--adk-sequential",
        action="store_true",
        default=None,
        help="run each eval case in waves and stop once its verdict is proven at 95%%, or can no longer change "
        "within --adk-num-runs, which becomes the most runs a case gets",
    )
    group.addoption(
        "--adk-agent",
        default=None,
        metavar="PATH|MODULE",
        help="the agent folder or dotted module for every eval file (default: the nearest ADK agent folder above "
        "each file)",
    )
    group.addoption(
        "--adk-config",
        default=None,
        metavar="FILE",
        help="one test_config.json for every eval file (default: the test_config.json found for each file, as "
        "adk-eval-gate finds it)",
    )
    for flag, what in (
        ("--adk-legacy-session-file", "seed a legacy query list's session from the initial.session.json beside it"),
        ("--adk-lenient-judge-labels", "read judge metrics' answer labels more leniently than ADK"),
    ):
        group.addoption(flag, action="store_true", default=False, help=f"{what} (adk-eval-gate's --{flag[6:]})")


class _Engine:
    """This process's case session and the event loop its agents run in (made on first use)."""

    def __init__(self, config: pytest.Config) -> None:
        from adk_eval_gate.config.settings import build_settings
        from adk_eval_gate.inputs.agent_sources import parse_agent_value
        from adk_eval_gate.inputs.configs import find_repository_root
        from adk_eval_gate.pytest.case_session import CaseSession
        from adk_eval_gate.support.errors import GateError

        options = {
            "num_runs": config.getoption("adk_num_runs"),
            "sequential": config.getoption("adk_sequential"),
            "agent": config.getoption("adk_agent"),
            "config": config.getoption("adk_config"),
            "legacy_session_file": config.getoption("adk_legacy_session_file"),
            "lenient_judge_labels": config.getoption("adk_lenient_judge_labels"),
        }
        environment = {key: value for key, value in os.environ.items() if not key.startswith("INPUT_")}
        root = find_repository_root(config.rootpath)
        try:
            settings = build_settings("run", options, environment)
            if settings.agent:
                parse_agent_value(settings.agent, root=root, field="--agent")
        except GateError as error:  # named as the gate's option: --num-runs is --adk-num-runs here
            raise pytest.UsageError(error.one_line().replace("--", "--adk-", 1)) from None
        self.session: CaseSession = CaseSession(settings, root=root)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = False

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        if self._loop is None:
            import asyncio

            self._loop = asyncio.new_event_loop()
        return self._loop.run_until_complete(work)

    def _start(self, session: pytest.Session) -> None:
        """Once: the worker processes for every eval case pytest will run, which import the agents."""
        if self._started:
            return
        self._started = True
        import contextlib
        import dataclasses

        from adk_eval_gate.support.errors import GateError

        files: dict[int, tuple[PlannedFile, list[str]]] = {}
        for item in session.items:
            if isinstance(item, EvalCaseItem):
                files.setdefault(id(item.planned), (item.planned, []))[1].append(item.name)
        chosen = [dataclasses.replace(planned, case_ids=tuple(names)) for planned, names in files.values()]
        with contextlib.suppress(GateError):  # no runner (google-adk missing): each case that needs one says so
            self.run(self.session.start(chosen))

    def case(self, item: EvalCaseItem) -> CaseResult:
        """The item's case, run and decided, with every secret masked."""
        from adk_eval_gate.support.errors import GateError

        self._start(item.session)
        try:
            (case,) = self.run(self.session.run(item.planned, (item.name,)))
        except GateError as error:  # no runner for the case (google-adk missing, --adk-agent wrong)
            raise EvalCaseError(self.session.mask(error.one_line())) from None
        return self.session.masked(case)

    def close(self) -> None:
        if self._loop is not None:
            self._loop.run_until_complete(self.session.aclose())
            self._loop.close()


_ENGINE = pytest.StashKey[_Engine]()


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("adk_eval"):
        config.stash[_ENGINE] = _Engine(config)
        # ADK deprecates Runner(plugins=...), which the adk runner passes for an agent without an App
        config.addinivalue_line("filterwarnings", "ignore:The `plugins` argument is deprecated:DeprecationWarning")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Once pytest has written ``--junitxml`` (not in a pytest-xdist worker, which writes none): the eval tests'
    file, line and re-runs put where the JUnit readers look (``junitxml.enrich``)."""
    config = session.config
    target = config.getoption("xmlpath", None)
    if _ENGINE not in config.stash or not target or hasattr(config, "workerinput"):
        return
    from adk_eval_gate.pytest import junitxml

    path = Path(os.path.abspath(os.path.expanduser(os.path.expandvars(target))))
    if path.is_file():
        junitxml.enrich(path)


def pytest_unconfigure(config: pytest.Config) -> None:
    engine = config.stash.get(_ENGINE, None)
    if engine is not None:
        engine.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """An eval item's report: the gate's text for its failure (no traceback), and no secret anywhere in it."""
    report = yield
    if isinstance(item, (EvalCaseItem, BrokenEvalFile)):
        session = item.config.stash[_ENGINE].session
        if call.excinfo is not None and isinstance(call.excinfo.value, EvalCaseFailed):
            report.longrepr = str(call.excinfo.value)
        if report.longrepr is not None:
            report.longrepr = session.mask(str(report.longrepr))
        report.sections = [(title, session.mask(text)) for title, text in report.sections]
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """A folder's entries named like eval files that pytest passes over because they are not regular files (a FIFO,
    a link that loops or dangles) are eval files too, each one failing item that names it, as ``run`` reports it."""
    report = yield
    if _ENGINE in collector.config.stash and isinstance(collector, pytest.Directory) and report.passed:
        report.result.extend(_irregular_eval_files(collector))
    return report


def _irregular_eval_files(folder: pytest.Directory) -> list[EvalFile]:
    from adk_eval_gate.inputs import formats

    found = []
    with os.scandir(folder.path) as entries:
        for entry in sorted(entries, key=lambda entry: entry.name):
            if not formats.named_as_eval_file(entry.name) or _file_or_folder(entry):
                continue
            path = Path(entry.path)
            if not folder.ihook.pytest_ignore_collect(collection_path=path, config=folder.config):
                found.append(EvalFile.from_folder(folder, path=path))
    return found


def _file_or_folder(entry: os.DirEntry[str]) -> bool:
    """What pytest collects itself: a regular file or a folder (a link to one too); False for a link that loops."""
    try:
        return entry.is_file() or entry.is_dir()
    except OSError:
        return False


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if _ENGINE not in parent.config.stash:
        return None
    from adk_eval_gate.inputs import formats

    named = parent.session.isinitpath(file_path) and file_path.suffix in formats.NAMED_SUFFIXES
    if formats.discovered(file_path) or named:  # a file named on the command line may have any name
        return EvalFile.from_folder(parent, path=file_path)
    return None


class EvalFile(pytest.File):
    """An eval file: one item per eval case, or one failing item when the file cannot be loaded."""

    @classmethod
    def from_folder(cls, folder: pytest.Collector, *, path: Path) -> EvalFile:
        """The file's collector, hung from the nearest folder above it that is in no Python package: pytest sets
        up each package an item is in by importing its ``__init__.py``, which for an agent folder imports the
        agent, in pytest's own process. The agents are imported in the gate's worker processes only, so an agent
        that crashes or calls ``os._exit`` at import ends a worker, not pytest (the node id stays the same)."""
        chain = folder.listchain()
        outermost = next((index for index, node in enumerate(chain) if isinstance(node, pytest.Package)), None)
        parent = folder if outermost is None else chain[outermost - 1]
        assert isinstance(parent, pytest.Collector)
        file: EvalFile = cls.from_parent(parent, path=path)
        return file

    def collect(self) -> Iterator[pytest.Item]:
        from adk_eval_gate.support.errors import GateError

        engine = self.config.stash[_ENGINE]
        try:
            planned = engine.session.load(self.path)
        except GateError as error:
            yield BrokenEvalFile.from_parent(self, name=FILE_ITEM, problem=error.one_line())
            return
        for warning in [*planned.config.warnings, *planned.loaded.warnings]:
            self.warn(AdkEvalWarning(warning))
        for case in planned.loaded.eval_set.eval_cases:
            line = planned.loaded.case_lines.get(case.eval_id)
            yield EvalCaseItem.from_parent(self, name=case.eval_id, planned=planned, line=line)


class EvalCaseItem(pytest.Item):
    """One eval case: its runs, scored and judged by the gate.

    The runs happen in ``setup``, so that a case that could not be run to a verdict (the gate's ``error``: the
    agent crashed, exited, timed out or could not be imported) is a pytest error, as the gate's JUnit file has
    it; ``runtest`` then fails a case that failed or could not be evaluated."""

    def __init__(self, *, planned: PlannedFile, line: int | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.planned = planned
        self.line = line
        self.case: CaseResult | None = None

    def setup(self) -> None:
        if self.config.getoption("setuponly", False):
            return  # pytest --setup-only and --setup-plan run nothing
        from adk_eval_gate.model.results import CaseStatus
        from adk_eval_gate.pytest import junitxml
        from adk_eval_gate.pytest.case_text import case_report

        self.case = self.config.stash[_ENGINE].case(self)
        self.user_properties.extend(
            junitxml.properties(file=self.nodeid.split("::")[0], line=self.line, case=self.case)
        )
        if self.case.status == CaseStatus.ERROR:
            raise EvalCaseError(case_report(self.case))

    def runtest(self) -> None:
        from adk_eval_gate.model.results import CaseStatus
        from adk_eval_gate.pytest.case_text import case_report

        if self.case is not None and self.case.status != CaseStatus.PASSED:
            raise EvalCaseFailed(case_report(self.case))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, EvalCaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, (self.line or 1) - 1, f"eval case {self.name}"


class BrokenEvalFile(pytest.Item):
    """An eval file that cannot be loaded: one failure with the gate's one-line error; the other files run."""

    def __init__(self, *, problem: str, **kwargs: Any) -> None:
        from adk_eval_gate.pytest import junitxml

        super().__init__(**kwargs)
        self.problem = problem
        self.user_properties.extend(junitxml.properties(file=self.nodeid.split("::")[0], line=None, case=None))

    def runtest(self) -> None:
        """Fails with what is wrong first (the line pytest's short summary shows), then the gate's whole line."""
        from adk_eval_gate.pytest.case_text import without_file

        first = without_file(self.problem, self.nodeid.split("::")[0])
        raise EvalCaseFailed(self.problem if first == self.problem else f"{first}\n{self.problem}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        return str(excinfo.value)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, "eval file"
