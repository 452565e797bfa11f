"""The rules of ``inputs.agent_sources``, applied to each eval file with what the repository holds
(``inputs.projects``), read once per run and only when a rule needs it."""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from adk_eval_gate.inputs.agent_sources import (
    CHOOSE_HINT,
    AgentChoice,
    AgentRef,
    NoAgent,
    Runs,
    agent_folder_above,
    folder_ref,
    module_ref,
    parse_agent_value,
    same_agent,
    same_place,
)
from adk_eval_gate.inputs.discover import display_path
from adk_eval_gate.inputs.projects import (
    GATE_TABLE,
    MAX_SETTINGS_BYTES,
    PYPROJECT,
    RepositoryIndex,
    pytest_bases,
    read_settings_file,
    tool_table,
)
from adk_eval_gate.inputs.pytest_rootdir import PytestFolders
from adk_eval_gate.inputs.test_modules import EvaluatorCall, ModuleCalls, SkippedCall, read_calls
from adk_eval_gate.support.atomic import read_regular
from adk_eval_gate.support.errors import UsageError
from adk_eval_gate.support.globs import PathGlob
from adk_eval_gate.support.words import did_you_mean, plural

TABLE_SOURCE = f"[tool.{GATE_TABLE}.agents] in {PYPROJECT}"


@dataclass(frozen=True)
class AgentMapping:
    """One line of the gate's mapping: the eval files a glob matches run with an agent."""

    glob: str
    ref: AgentRef
    source: str  # "--agent-map" or TABLE_SOURCE

    def matches(self, display: str) -> bool:
        pattern = _compiled(self.glob)
        return pattern.matches(display) or ("/" not in self.glob and pattern.matches(display.rsplit("/", 1)[-1]))


_compiled = functools.cache(PathGlob)


@dataclass(frozen=True)
class Candidate:
    ref: AgentRef
    source: str
    origin: str | None


class AgentLocator:
    """Finds each eval file's agent (and the runs of the ``AgentEvaluator`` call that names it)."""

    def __init__(
        self,
        *,
        root: Path,
        option: AgentRef | None = None,
        option_name: str = "--agent",
        mappings: list[AgentMapping],
        runs_wanted: bool = True,
    ) -> None:
        """``runs_wanted``: read the AgentEvaluator calls for their ``num_runs`` even when ``option`` is given."""
        self.root = root.resolve()
        self.option = option
        self.runs_wanted = runs_wanted
        self.option_name = option_name
        self.mappings = mappings
        self.used_mappings: set[AgentMapping] = set()

    @functools.cached_property
    def index(self) -> RepositoryIndex:
        return RepositoryIndex.scan(self.root)

    @functools.cached_property
    def _modules(self) -> list[ModuleCalls]:
        folders = PytestFolders(self.root)
        return [read_calls(test, project=folders.of(test), root=self.root) for test in self.index.test_modules]

    @functools.cached_property
    def _calls(self) -> tuple[list[EvaluatorCall], list[SkippedCall]]:
        return [c for m in self._modules for c in m.calls], [s for m in self._modules for s in m.skipped]

    def _read(self) -> list[ModuleCalls]:
        """The test modules read, none when no file needed their calls."""
        return self._modules if "_modules" in self.__dict__ else []

    def skipped_calls(self) -> list[str]:
        """The AgentEvaluator calls that could not be read, one line each (``validate`` lists them)."""
        return [f"{self._where(s.test_file, s.line)}: {s.reason}" for m in self._read() for s in m.skipped]

    def skipped_by_module(self) -> list[str]:
        """The same, one line per test module (``run`` says them): its first call that could not be read."""
        lines = []
        for module in self._read():
            if module.skipped:
                first, more = module.skipped[0], len(module.skipped) - 1
                rest = f" (and {plural(more, 'other call')} of the file: validate lists them)" if more else ""
                lines.append(f"{self._where(first.test_file, first.line)}: {first.reason}{rest}")
        return lines

    def unawaited_notes(self) -> list[str]:
        """One line per test module whose sync tests call the async AgentEvaluator without awaiting it."""
        return [
            f"{self._where(module.test_file, module.unawaited[0])}: {_unawaited(len(module.unawaited))}"
            for module in self._read()
            if module.unawaited
        ]

    def _where(self, test_file: Path, line: int) -> str:
        return f"{display_path(test_file, self.root)}{f':{line}' if line else ''}"

    def unused_mappings(self) -> list[str]:
        return [
            f"{mapping.source}: {mapping.glob!r} matches no eval file"
            for mapping in self.mappings
            if mapping not in self.used_mappings
        ]

    def choose(self, eval_file: Path) -> AgentChoice | NoAgent:
        display = display_path(eval_file, self.root)
        inside = self.root in eval_file.resolve().parents
        calls = self._calls_naming(eval_file) if inside and (self.runs_wanted or self.option is None) else []
        most = max(calls, key=lambda call: call.num_runs) if calls else None
        runs = Runs(most.num_runs, self._call_source(most), most.num_runs_given) if most else None
        if self.option is not None:
            return AgentChoice(self.option, f"from {self.option_name}", None, runs)
        for mapping in self.mappings:
            if mapping.matches(display):
                self.used_mappings.add(mapping)
                return AgentChoice(mapping.ref, f"mapped by {mapping.glob!r} in {mapping.source}", None, runs)
        # in the rules' order: the first that says something decides, and a later one may only agree with it
        candidates = [*self._from_calls(calls), *self._from_folder(eval_file)]
        candidates += self._from_agents_cli(eval_file) if inside else []
        if candidates:
            first = candidates[0]
            if isinstance(first, NoAgent):
                return first
            for other in candidates[1:]:
                if isinstance(other, Candidate) and not _agrees(first.ref, other=other.ref):
                    return NoAgent(
                        f"two agents are named for it: {first.ref.display} ({first.source}) and {other.ref.display} "
                        f"({other.source}); {CHOOSE_HINT}",
                        origin=first.origin,
                    )
            return AgentChoice(first.ref, first.source, first.origin, runs)
        if inside and len(self.index.agent_folders) == 1:
            only = folder_ref(self.index.agent_folders[0], self.root)
            return AgentChoice(only, "the repository's only agent", None, runs)
        return NoAgent(self._nothing_found(display, inside=inside))

    def _calls_naming(self, eval_file: Path) -> list[EvaluatorCall]:
        resolved = eval_file.resolve()
        return [call for call in self._calls[0] if call.path == resolved or call.path in resolved.parents]

    def _call_source(self, call: EvaluatorCall) -> str:
        return f"{display_path(call.test_file, self.root)}:{call.line}"

    def _from_calls(self, calls: list[EvaluatorCall]) -> list[Candidate | NoAgent]:
        found: list[Candidate | NoAgent] = []
        for call in calls:
            where = self._call_source(call)
            bases = pytest_bases(call.test_file, root=self.root)
            ref = module_ref(call.agent_module, bases=bases, root=self.root, sub_agent=call.agent_name)
            if ref is None:
                ref = self._installed(call)
            if ref is None:
                known = sorted({folder.name for folder in self.index.agent_folders})
                found.append(
                    NoAgent(
                        f"{where} names agent module {call.agent_module!r}, which is neither in the repository nor "
                        f"installed{_did_you_mean(call.agent_module, known)}",
                        origin=display_path(call.test_file, self.root),
                    )
                )
                continue
            source = f"AgentEvaluator.{call.method} at {where}"
            found.append(Candidate(ref, source, display_path(call.test_file, self.root)))
        return found

    @staticmethod
    def _installed(call: EvaluatorCall) -> AgentRef | None:
        try:
            spec = importlib.util.find_spec(call.agent_module.split(".")[0])
        except (ImportError, ValueError):
            spec = None
        return AgentRef("module", call.agent_module, call.agent_module, call.agent_name) if spec else None

    def _from_folder(self, eval_file: Path) -> list[Candidate | NoAgent]:
        above = agent_folder_above(eval_file, root=self.root)
        return [Candidate(above, "the agent folder above the file", None)] if above else []

    def _from_agents_cli(self, eval_file: Path) -> list[Candidate | NoAgent]:
        for project in self.index.agents_cli:
            if not project.holds(eval_file):
                continue
            origin = display_path(project.origin, self.root)
            if project.agent_directory is None:
                return [NoAgent(f"its agents-cli project's {project.problem}", origin=origin)]
            return [Candidate(folder_ref(project.agent_directory, self.root), f"agent_directory of {origin}", origin)]
        return []

    def _nothing_found(self, display: str, *, inside: bool) -> str:
        if not inside:
            return (
                f"no agent found for {display}: it is outside the repository ({self.root.name}), and no mapping or "
                f"agent folder above it names one; {CHOOSE_HINT}"
            )
        agents = [display_path(folder, self.root) for folder in self.index.agent_folders]
        listed = ", ".join(agents[:5]) + (f" and {len(agents) - 5} more" if len(agents) > 5 else "")
        where = f"the repository has {len(agents)} agents ({listed})" if agents else "the repository has no agent"
        unread = len(self._calls[1])
        if unread:
            where += f" ({plural(unread, 'AgentEvaluator call')} could not be read: validate lists them)"
        return (
            f"no agent found for {display}: no mapping, AgentEvaluator call, agent folder above it or agents-cli "
            f"project names one, and {where}; {CHOOSE_HINT}"
        )


def _unawaited(count: int) -> str:
    calls = "an AgentEvaluator call" if count == 1 else f"{count} AgentEvaluator calls"
    return (
        f"a sync test (def, not async def) makes {calls} without await, so under pytest it passes without "
        "evaluating anything (the coroutine is never awaited); make the test async def with @pytest.mark.asyncio "
        "and await the call"
    )


def _agrees(first: AgentRef, *, other: AgentRef) -> bool:
    """A later rule agrees with the first when it names the same agent, or the same agent code without the
    sub-agent the first names (a call's ``agent_name`` is more specific than the folder above the file)."""
    return same_agent(first, other) or (same_place(first, other) and other.sub_agent is None)


def _did_you_mean(name: str, known: list[str]) -> str:
    close = did_you_mean(name.split(".", maxsplit=1)[0], known)
    return f" (did you mean {close!r}?)" if close else ""


def read_mappings(lines: list[str], *, root: Path, field: str) -> list[AgentMapping]:
    """The gate's mapping: ``GLOB=AGENT`` lines of the option or input, then the repository's table."""
    mappings = []
    for line in lines:
        glob, separator, value = line.partition("=")
        if not separator or not glob.strip() or not value.strip():
            raise UsageError(f"{line!r} is not GLOB=AGENT", field=field, hint="e.g. 'evals/billing/**=billing_agent'")
        ref = parse_agent_value(value.strip(), root=root, field=field, inside=True)
        mappings.append(AgentMapping(glob.strip(), ref, field))
    return mappings + _table_mappings(root)


def _table_mappings(root: Path) -> list[AgentMapping]:
    path = root / PYPROJECT
    if not path.is_file():
        return []
    data, problem = read_settings_file(path, root=root)
    if data is None:  # an error only when the gate's table is in it: a broken pyproject.toml is not the gate's
        text = read_regular(path, max_bytes=MAX_SETTINGS_BYTES)
        if isinstance(text, str) or f"tool.{GATE_TABLE}".encode() not in text:
            return []
        raise UsageError(f"{problem}, so its [tool.{GATE_TABLE}] table cannot be read", file=PYPROJECT)
    table = tool_table(data, GATE_TABLE)
    agents = table.get("agents") if isinstance(table, dict) else None
    if agents is None:
        return []
    if not isinstance(agents, dict) or not all(isinstance(v, str) for v in agents.values()):
        raise UsageError(
            'must be a table of "eval-file glob" = "agent folder or module" strings',
            file=PYPROJECT,
            field=f"tool.{GATE_TABLE}.agents",
        )
    return [
        AgentMapping(glob, parse_agent_value(value, root=root, field=TABLE_SOURCE, inside=True), TABLE_SOURCE)
        for glob, value in agents.items()
    ]
