"""Each eval file's agent, found as ADK's own tools find it, with the source shown per file.

In order: ``--agent``; the gate's own mapping of eval-file globs to agents (``--agent-map``, then the
``[tool.adk-eval-gate.agents]`` table of the repository's ``pyproject.toml``); the ``AgentEvaluator`` calls of the
repository's tests (``inputs.test_modules``, never run); the agent folder above the file (``adk eval``'s layout);
an agents-cli project's ``agent_directory`` for the files under its ``tests/eval/``; the repository's only agent.
The first two are what a team writes to choose; among the others, two that name different agents are an error for
the file, naming both and how to choose. A file that no rule maps is an error for that file alone.
"""

from __future__ import annotations

import difflib
import importlib.util
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from adk_eval_gate.inputs.discover import display_path
from adk_eval_gate.support.errors import UsageError
from adk_eval_gate.support.repository_paths import code_outside_repository, path_value_problem, shown
from adk_eval_gate.support.words import plural

_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
CHOOSE_HINT = (
    'choose with a line in the [tool.adk-eval-gate.agents] table of pyproject.toml ("eval-file glob" = "agent '
    'folder or module"), the agent-map input, --agent-map GLOB=AGENT, or --agent for every file'
)


@dataclass(frozen=True)
class AgentRef:
    kind: Literal["folder", "module"]
    location: str  # an absolute folder, or a dotted module name
    display: str  # what messages show: a repository-relative folder or the module name
    sub_agent: str | None = None  # evaluate this agent of the tree instead of the root (AgentEvaluator's agent_name)
    import_root: str | None = None  # a module's folder on sys.path (the project pytest would import it from)


@dataclass(frozen=True)
class Runs:
    """A file's own number of runs: the ``num_runs`` of the AgentEvaluator call that names it."""

    count: int
    at: str  # the call ("eval/test_eval.py:32")
    given: bool  # False: the call gives none, and ADK's default applies

    def describe(self) -> str:
        return plural(self.count, "run") + ("" if self.given else ", ADK's default")


@dataclass(frozen=True)
class AgentChoice:
    """A file's agent and how it was found."""

    ref: AgentRef
    source: str  # "AgentEvaluator.evaluate at eval/test_eval.py:31", "the agent folder above the file", ...
    origin: str | None = None  # the repository file that decided it (a test module, a manifest), for --only-affected
    runs: Runs | None = None

    @property
    def num_runs(self) -> int | None:
        return self.runs.count if self.runs else None

    def describe(self, *, runs: bool = True) -> str:
        """``customer_service (AgentEvaluator.evaluate at eval/test_eval.py:31, 1 run)``; ``runs``: say the file's
        own runs (not when --num-runs decides them)."""
        agent = self.ref.display if self.ref.sub_agent is None else f"{self.ref.sub_agent} of {self.ref.display}"
        if not runs or self.runs is None:
            return f"{agent} ({self.source})"
        if self.source.endswith(f" at {self.runs.at}"):  # the call that named the agent gives the runs too
            return f"{agent} ({self.source}, {self.runs.describe()})"
        return f"{agent} ({self.source}), {self.runs.describe()} (AgentEvaluator call at {self.runs.at})"


@dataclass(frozen=True)
class NoAgent:
    """Why a file has no agent (an error for that file; the others still run)."""

    reason: str
    origin: str | None = None


def is_agent_folder(folder: Path) -> bool:
    return (folder / "__init__.py").is_file() and (
        (folder / "agent.py").is_file() or (folder / "agent" / "__init__.py").is_file()
    )


def folder_ref(folder: Path, root: Path, *, sub_agent: str | None = None) -> AgentRef:
    return AgentRef("folder", str(folder.resolve()), display_path(folder, root), sub_agent=sub_agent)


def agent_folder_above(eval_file: Path, *, root: Path) -> AgentRef | None:
    """The nearest ancestor folder of ``eval_file`` that is an ADK agent folder, up to the repository root."""
    root = root.resolve()
    for folder in eval_file.resolve().parents:
        if is_agent_folder(folder):
            return folder_ref(folder, root)
        if folder == root or root not in folder.parents:
            break
    return None


def module_ref(name: str, *, bases: list[Path], root: Path, sub_agent: str | None = None) -> AgentRef | None:
    """The module ``name`` as Python would import it with ``bases`` first on ``sys.path``: a package of one name
    is its folder; a dotted name keeps the base it is found in. None when no base in the repository has it."""
    parts = name.split(".")
    if path_value_problem("/".join(parts)) is not None:  # a name no file can have: in no base
        return None
    root = root.resolve()
    for given in bases:
        base = given.resolve()
        if base != root and root not in base.parents:
            continue
        package = base.joinpath(*parts)
        if (package / "__init__.py").is_file():
            if len(parts) == 1:
                return folder_ref(package, root, sub_agent=sub_agent)
            return AgentRef("module", name, name, sub_agent=sub_agent, import_root=str(base))
        if package.with_suffix(".py").is_file():
            return AgentRef("module", name, name, sub_agent=sub_agent, import_root=str(base))
    return None


def _agent_folder(ref: AgentRef) -> Path | None:
    """Where the agent's code is on disk (None: an installed module), to tell whether two refs are the same."""
    if ref.kind == "folder":
        return Path(ref.location)
    if ref.import_root is None:
        return None
    path = Path(ref.import_root).joinpath(*ref.location.split("."))
    return path if path.is_dir() else path.with_suffix(".py")


def same_place(first: AgentRef, second: AgentRef) -> bool:
    """Whether the two name the same agent code (their ``sub_agent`` aside)."""
    places = _agent_folder(first), _agent_folder(second)
    return places[0] == places[1] if None not in places else first.location == second.location


def same_agent(first: AgentRef, second: AgentRef) -> bool:
    return same_place(first, second) and first.sub_agent == second.sub_agent


def _code_files(ref: AgentRef) -> list[Path]:
    """The files of the agent's code the gate would import first: a folder, its ``__init__.py`` and agent module;
    a module's own file (none for an installed module)."""
    place = _agent_folder(ref)
    if place is None:
        return []
    if ref.kind == "module" and place.suffix == ".py":
        return [place]
    return [place, place / "__init__.py", place / "agent.py", place / "agent" / "__init__.py"]


def kept_inside(choice: AgentChoice | NoAgent, *, option: AgentRef | None, root: Path) -> AgentChoice | NoAgent:
    """The choice, unless the agent's code it would import lies outside the repository (``support.repository_paths``'
    one rule, as for custom metric files): then why, for that file. ``option``: ``--agent``, the workflow's own
    choice, which may name an agent anywhere."""
    if not isinstance(choice, AgentChoice) or choice.ref == option:
        return choice
    for path in _code_files(choice.ref):
        outside = code_outside_repository(path, root=root) if os.path.lexists(path) else None
        if outside is not None:
            return NoAgent(f"agent {choice.ref.display}: {display_path(path, root)} {outside}", origin=choice.origin)
    return choice


def parse_agent_value(value: str, *, root: Path, field: str, inside: bool = False) -> AgentRef:
    """An agent given by the user (``--agent``, a mapping): an agent folder, relative to the working directory or
    the repository root, or a dotted module that is in the repository or installed. ``inside``: a folder must be
    in the repository (a mapping, which a pull request can change)."""
    if not value or any(ord(character) < 32 for character in value):
        raise UsageError(
            f"{shown(value)} is neither an existing folder nor a dotted module name (it holds control characters)",
            field=field,
        )
    unusable = path_value_problem(value)
    if unusable is not None:
        raise UsageError(
            f"{shown(value)} {unusable}", field=field, hint="give an agent folder (e.g. agents/weather) or a module"
        )
    for base in (Path.cwd(), root):
        candidate = (base / value).resolve()
        if candidate.is_dir() and inside and candidate != root.resolve() and root.resolve() not in candidate.parents:
            raise UsageError(f"{value!r} is a folder outside the repository", field=field)
        if candidate.is_dir():
            if not (candidate / "__init__.py").is_file():
                raise UsageError(
                    f"{value!r} is a folder without __init__.py, so it is not an ADK agent folder",
                    field=field,
                    hint="give the agent folder whose __init__.py imports agent (from . import agent)",
                )
            return folder_ref(candidate, root)
    if _DOTTED.fullmatch(value):
        found = module_ref(value, bases=[Path.cwd(), root, root / "src"], root=root)
        if found is not None:
            return found if found.kind == "module" else AgentRef("module", value, value)  # imported by name
        if importlib.util.find_spec(value.split(".", maxsplit=1)[0]) is not None:
            return AgentRef("module", value, value)  # installed
        close = difflib.get_close_matches(value.split(".", maxsplit=1)[0], _top_level_names(root), n=1, cutoff=0.6)
        raise UsageError(
            f"{value!r} is neither a folder nor a module of the repository, and no installed package provides "
            f"{value.split('.', maxsplit=1)[0]!r}",
            field=field,
            hint=f"did you mean {close[0]!r}?" if close else "give an agent folder (e.g. agents/weather) or a module",
        )
    raise UsageError(
        f"{value!r} is neither an existing folder nor a dotted module name",
        field=field,
        hint=_close_folder(value, root) or "give an agent folder (e.g. agents/weather) or a module (e.g. my_pkg.agent)",
    )


def _close_folder(value: str, root: Path) -> str | None:
    """ "did you mean" for a folder path with a typo in its last part."""
    path = Path(value)
    for base in (Path.cwd(), root):
        try:
            siblings = [entry.name for entry in (base / path.parent).iterdir() if entry.is_dir()]
        except OSError:
            continue
        close = difflib.get_close_matches(path.name, siblings, n=1, cutoff=0.6)
        if close:
            return f"did you mean {(path.parent / close[0]).as_posix()!r}?"
    return None


def _top_level_names(root: Path) -> list[str]:
    """The packages and modules a dotted name could start with: those of the working folder and the repository."""
    names: set[str] = set()
    for base in (Path.cwd(), root, root / "src"):
        try:
            entries = list(base.iterdir())
        except OSError:
            continue
        names |= {entry.name for entry in entries if (entry / "__init__.py").is_file()}
        names |= {entry.stem for entry in entries if entry.suffix == ".py" and entry.is_file()}
    return sorted(names)
