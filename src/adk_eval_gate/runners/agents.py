"""Import ADK agents the way ``adk eval`` does, once per agent (``inputs.agent_sources`` finds them).

An agent is a folder whose ``__init__.py`` imports ``agent`` (``agent.py`` or an ``agent`` package beside it), or a
dotted module. In the module, an ``App`` named ``app`` wins, then ``root_agent``, then ``get_agent_async()``. The
``.env`` beside the agent (or above it) is loaded first, as ADK does.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import importlib.util
import inspect
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pydantic

from adk_eval_gate.inputs.agent_sources import AgentRef
from adk_eval_gate.support.errors import GateError

_ALIAS_PREFIX = "_adk_eval_gate_agent_"


@dataclass
class AgentError(GateError):
    """The agent to run cannot be found or used (exit code 2 when it stops the whole run).

    ``source_file`` and ``source_line``: the line of the agent's own code where importing it failed, for an
    annotation there; ``short``: what each case of the agent says, when the whole line is reported once."""

    source_file: str | None = None
    source_line: int | None = None
    short: str | None = None

    def reason(self) -> str:
        """What each case of the agent says: the short form, else the one line without the hint."""
        return self.short or dataclasses.replace(self, hint=None).one_line()


@dataclass
class LoadedAgent:
    ref: AgentRef
    root_agent: Any  # google.adk BaseAgent (or workflow node)
    app: Any | None  # google.adk App, when the module exposes one named ``app``
    local_authors: frozenset[str] | None = None  # agents whose model is a class of the user's own (``adk_case``)


def _where(error: BaseException, folder: str | None) -> tuple[str, int] | None:
    """The file and line of the innermost frame of the agent's own code, if any."""
    if isinstance(error, SyntaxError) and error.filename and error.lineno:
        return _short(error.filename), error.lineno
    frames = traceback.extract_tb(error.__traceback__)
    own = [f for f in frames if folder and os.path.abspath(f.filename).startswith(folder)]
    if not own or own[-1].lineno is None:
        return None
    return _short(own[-1].filename), own[-1].lineno


def _install_hint(error: BaseException, folder: str | None) -> str | None:
    """Where to add a package that is not installed (not for a module of the agent's own that is missing)."""
    if not isinstance(error, ModuleNotFoundError) or not error.name:
        return None
    top = error.name.split(".")[0]
    own = {Path(folder).name} if folder else set()
    if top in own or top.startswith(_ALIAS_PREFIX) or importlib.util.find_spec(top) is not None:
        return None
    if os.environ.get("GITHUB_ACTIONS") == "true":
        return f"list the package that provides {top!r} in the action's requirements input"
    return f"pip install the package that provides {top!r} where the gate runs"


def _short(filename: str) -> str:
    try:
        return Path(filename).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return filename


def _load_dotenv(folder: Path) -> None:
    try:
        from google.adk.cli.utils import envs

        envs.load_dotenv_for_agent(folder.name, str(folder.parent))
    except ImportError:  # an ADK without the helper: read the nearest .env ourselves
        from dotenv import load_dotenv

        for parent in (folder, *folder.parents):
            if (parent / ".env").is_file():
                load_dotenv(parent / ".env", override=False)
                break


def _import_folder(folder: Path) -> ModuleType:
    """Imports the folder as a package named after it (an alias when that name is taken by something else)."""
    init = folder / "__init__.py"
    name = folder.name
    existing = sys.modules.get(name)
    if existing is not None and getattr(existing, "__file__", None) == str(init):
        return existing
    if existing is not None or not name.isidentifier():
        index = 0
        while f"{_ALIAS_PREFIX}{index}" in sys.modules:
            index += 1
        name = f"{_ALIAS_PREFIX}{index}"
    if str(folder.parent) not in sys.path:
        sys.path.append(str(folder.parent))  # absolute imports of the agent's own package work, as in adk web
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(folder)])
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {init}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        for key in [key for key in sys.modules if key == name or key.startswith(name + ".")]:
            del sys.modules[key]
        raise
    return module


def _import_module(name: str, root: Path, import_root: str | None) -> ModuleType:
    if import_root is not None and import_root not in sys.path:
        sys.path.insert(0, import_root)  # the project the module was found in, first, as pytest puts its root
    for path in (str(Path.cwd()), str(root)):
        if path not in sys.path:
            sys.path.append(path)
    module = importlib.import_module(name)
    if not (hasattr(module, "agent") or name.endswith(".agent")):
        raise AgentError(
            f"module {name} has no member named agent and its name does not end with .agent",
            field="--agent",
            hint="give the package whose __init__.py imports agent, or the agent module itself",
        )
    return module


async def _root_of(module: ModuleType) -> tuple[Any, Any | None]:
    from google.adk.apps.app import App

    holder = getattr(module, "agent", module)
    app = getattr(holder, "app", None)
    if isinstance(app, App):
        return app.root_agent, app
    if getattr(holder, "root_agent", None) is not None:
        return holder.root_agent, None
    factory = getattr(holder, "get_agent_async", None)
    if callable(factory):
        made = factory()
        made = await made if inspect.isawaitable(made) else made
        return (made[0] if isinstance(made, tuple) else made), None
    package_file = getattr(module, "__file__", None)
    if holder is module and hasattr(module, "__path__") and package_file:
        init = Path(package_file)
        if (init.parent / "agent.py").is_file():
            raise AgentError(
                "has an agent.py that its __init__.py does not import",
                hint=f"add 'from . import agent' to {init.parent.name}/__init__.py: ADK imports the package and "
                "reads agent.root_agent from it",
            )
    raise AgentError("defines no root_agent, get_agent_async() or App named app in its agent module")


def _sub_agent(root_agent: Any, name: str) -> Any:
    """The agent called ``name`` in the tree (the app, if any, still applies, as in AgentEvaluator)."""
    found = root_agent.find_agent(name) if hasattr(root_agent, "find_agent") else None
    if found is None:
        raise AgentError(f"has no sub-agent named {name!r}", hint="give the name of an agent in its tree")
    return found


def load_env(ref: AgentRef) -> None:
    """Loads the ``.env`` of a folder agent (as ``adk eval`` does before importing it)."""
    if ref.kind == "folder":
        _load_dotenv(Path(ref.location))


async def load_agent(ref: AgentRef, *, root: Path) -> LoadedAgent:
    """Imports the agent; raises ``AgentError`` with one line that says what went wrong and where."""
    folder = ref.location if ref.kind == "folder" else None
    try:
        if ref.kind == "folder":
            _load_dotenv(Path(ref.location))
            module = _import_folder(Path(ref.location))
        else:
            module = _import_module(ref.location, root, ref.import_root)
            if module.__file__:
                folder = str(Path(module.__file__).resolve().parent)
                _load_dotenv(Path(folder))
        root_agent, app = await _root_of(module)
        if ref.sub_agent is not None:
            root_agent = _sub_agent(root_agent, ref.sub_agent)
    except AgentError as error:
        raise AgentError(f"agent {ref.display} {error.message}", field=error.field, hint=error.hint) from None
    except (Exception, SystemExit) as error:
        detail = str(error) or type(error).__name__
        where = _where(error, folder)
        at = f"{where[0]}:{where[1]}" if where else None
        raise AgentError(
            f"agent {ref.display} could not be imported: {type(error).__name__}: {detail}" + (f" ({at})" if at else ""),
            hint=_install_hint(error, folder),
            source_file=where[0] if where else None,
            source_line=where[1] if where else None,
            short=f"agent {ref.display} could not be imported ({type(error).__name__}" + (f" at {at})" if at else ")"),
        ) from None
    return LoadedAgent(ref, root_agent, app)


async def _import_problems(refs: list[AgentRef], *, root: Path) -> dict[AgentRef, AgentError]:
    """Imports each agent; the errors of those that cannot be used."""
    problems = {}
    for ref in refs:
        try:
            await load_agent(ref, root=root)
        except AgentError as error:
            problems[ref] = error
    return problems


def _masked_problems(refs: list[AgentRef], *, root: Path) -> dict[AgentRef, AgentError]:
    """``_import_problems`` with the secrets of the environment after the imports (an agent's .env) masked."""
    from adk_eval_gate.support.masking import MASK, secrets_in_env

    problems = asyncio.run(_import_problems(refs, root=root))
    secrets = secrets_in_env(os.environ)

    def masked(text: str) -> str:
        for secret in secrets:
            text = text.replace(secret, MASK)
        return text

    return {
        ref: dataclasses.replace(problem, message=masked(problem.message), hint=problem.hint and masked(problem.hint))
        for ref, problem in problems.items()
    }


def import_problems_in_worker(
    refs: list[AgentRef], *, root: Path, on_output: Callable[[str], None], timeout: float
) -> dict[AgentRef, AgentError]:
    """``_import_problems`` in a process of its own, as ``run``'s workers import the agents: an agent whose import
    ends the process (``os._exit``, a crash) or does not finish is a problem of that agent, not the caller's end."""
    from adk_eval_gate.runners.workers.forked_call import WorkerLost, call_in_worker
    from adk_eval_gate.runners.workers.messages import AgentProblem

    if not refs:
        return {}

    def problems_by_index() -> list[tuple[int, AgentProblem]]:  # sent back as data: an index into refs each
        found = _masked_problems(refs, root=root)
        return [(index, AgentProblem.of(found[ref])) for index, ref in enumerate(refs) if ref in found]

    answer = pydantic.TypeAdapter(list[tuple[int, AgentProblem]])
    try:
        found = call_in_worker(problems_by_index, answer=answer, on_output=on_output, timeout=timeout)
        return {refs[index]: problem.error() for index, problem in found if 0 <= index < len(refs)}
    except WorkerLost as lost:
        if len(refs) == 1:
            return {refs[0]: AgentError(f"agent {refs[0].display} could not be imported: {lost}")}
    problems = {}  # one of them took the process with it: each alone, to name the one
    for ref in refs:
        problems.update(import_problems_in_worker([ref], root=root, on_output=on_output, timeout=timeout))
    return problems
