"""The command line: each command dispatched to its module with its settings, and its errors as one line. Imports
nothing heavy until a command runs, so ``--help`` is instant (the grammar: ``config/command_line.py``)."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from adk_eval_gate.config.command_line import Arguments, build_parser

if TYPE_CHECKING:
    from adk_eval_gate.config.settings import Settings
    from adk_eval_gate.github.client import GitHubClient
    from adk_eval_gate.selection.found_baseline import FindBaseline
    from adk_eval_gate.support.console import Console


def _dispatch(args: Arguments, console: Console, env: Mapping[str, str], *, supervised: bool) -> int:
    from adk_eval_gate.config.settings import build_settings

    command = args.command or ""
    settings = build_settings(command, args.option_values(), env)
    if settings.github_token is not None:
        console.add_secret(settings.token() or "")
    if command == "run":
        return _supervised_run(args, settings, console=console, env=env) if supervised else _run(settings, console)
    if command == "validate":
        from adk_eval_gate.commands.validate import validate

        return validate(settings, console)
    if command == "calibrate":
        from adk_eval_gate.commands.calibrate import calibrate_command

        return calibrate_command(settings, console)
    if command == "label":
        from adk_eval_gate.commands.label import label_command

        return label_command(console, results_file=args.results_file, output=args.output)
    if command == "report":
        from adk_eval_gate.commands.report import report
        from adk_eval_gate.github.session import github_session

        with github_session(settings, console) as github:
            code = report(
                settings,
                console,
                github=github,
                find_baseline=_baseline_lookup(settings, github, console),
                results_file=args.results_file,
                comment=bool(args.comment),
                pr=args.pr,
            )
        return 0 if args.exit_zero and code == 1 else code
    if command == "merge":
        from adk_eval_gate.commands.merge import merge_command

        return merge_command(settings, console, inputs=args.inputs, allow_incomplete=args.allow_incomplete)
    from adk_eval_gate.commands.migrate import migrate_command

    return migrate_command(console, old=args.old, new=args.new, initial_session=args.initial_session)


def _arguments(argv: Sequence[str] | None, env: Mapping[str, str]) -> list[str]:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv and env.get("GITHUB_ACTIONS") == "true":
        argv = ["run"]  # the action's container starts the CLI without arguments
    return argv


def _console(env: Mapping[str, str]) -> Console:
    from adk_eval_gate.support.console import Console
    from adk_eval_gate.support.masking import secrets_in_env

    return Console(in_actions=env.get("GITHUB_ACTIONS") == "true", secrets=secrets_in_env(env))


def main(argv: Sequence[str] | None = None, *, supervised: bool = False) -> int:
    """``supervised``: ``run`` in a child process under a supervising parent (``runners.workers.supervisor``), where
    the system can fork. The command line and the settings are read before the fork, so a usage or configuration
    error is reported once, as such."""
    from adk_eval_gate.config.environment import current_environment

    env = current_environment()
    if env.get(SETUP_ERROR):
        return _setup_failed(_arguments(argv, env), env)
    parser = build_parser()
    args = parser.parse_args(_arguments(argv, env), namespace=Arguments())
    if not args.command:
        parser.print_help()
        return 2
    console = _console(env)
    return _guarded(args, env, console, lambda: _dispatch(args, console, env, supervised=supervised))


def _guarded(args: Arguments, env: Mapping[str, str], console: Console, command: Callable[[], int]) -> int:
    """``command()``; its errors as one line and an exit code, never a traceback."""
    from adk_eval_gate.support.errors import GateError, unexpected

    try:
        return command()
    except GateError as error:
        console.error(error.one_line(), file=error.file, line=error.line, limit=False)
        if args.command == "run" and env.get("GITHUB_ACTIONS") == "true":
            _report_unevaluated(args, env, console, f"the gate could not run: {error.one_line()}")
        return 2
    except KeyboardInterrupt:
        console.line("interrupted")
        return 130
    except Exception as error:  # never a traceback for the user; ADK_EVAL_GATE_DEBUG=1 shows it
        if env.get("ADK_EVAL_GATE_DEBUG"):
            raise
        console.error(
            f"internal error: {unexpected(error)} (set ADK_EVAL_GATE_DEBUG=1 for details; please report it)",
            limit=False,
        )
        return 2


# Action inputs that still count when another input is what made the run fail: where the reports go and where
# the comment is posted.
_REPORTING_INPUTS = ("INPUT_GITHUB-TOKEN", "INPUT_OUTPUT-DIR", "INPUT_GATE-ID", "INPUT_COMMENT-MODE")


def _reporting_settings(args: Arguments, env: Mapping[str, str]) -> Settings:
    """The run's settings; if they are what failed, the reporting inputs alone; else the token alone."""
    from adk_eval_gate.config.settings import build_settings
    from adk_eval_gate.support.errors import GateError

    reporting = {k: v for k, v in env.items() if not k.startswith("INPUT_") or k in _REPORTING_INPUTS}
    token_only = {k: v for k, v in env.items() if not k.startswith("INPUT_") or k == "INPUT_GITHUB-TOKEN"}
    attempts = [(args.option_values(), env), ({}, reporting), ({}, token_only)]
    for values, variables in attempts[:-1]:
        try:
            return build_settings("run", values, variables)
        except GateError:
            continue
    return build_settings("run", *attempts[-1])


def _report_unevaluated(args: Arguments, env: Mapping[str, str], console: Console, reason: str) -> int:
    """Every report of a ``run`` that evaluated nothing (a bad input, a crash): status error, with the reason.

    When the settings themselves are what failed, the reports go where the reporting inputs (or the defaults)
    say, so a team still sees in the job summary and the pull request why the gate failed.
    """
    from adk_eval_gate.aggregate.run_info import run_info
    from adk_eval_gate.finish.ending import Ending, finish
    from adk_eval_gate.github.session import github_session
    from adk_eval_gate.model.results import ResultsDocument, RunStatus, Totals
    from adk_eval_gate.support.errors import GateError

    try:
        settings = _reporting_settings(args, env)
        doc = ResultsDocument(
            status=RunStatus.ERROR, error=reason, totals=Totals(), cases=[], run=run_info(settings, started_at=None)
        )
        with github_session(settings, console) as client:
            ending = Ending(pull_number=settings.github.pull_request_number)
            find_baseline = _baseline_lookup(settings, client, console)
            return max(
                1,
                finish(
                    doc, settings=settings, console=console, client=client, ending=ending, find_baseline=find_baseline
                ),
            )
    except GateError as error:
        console.error(f"the reports could not be written: {error.one_line()}", limit=False)
        return 2
    except Exception as error:  # the verdict is already an error; say why the reports are missing
        console.error(f"the reports could not be written: {type(error).__name__}: {error}", limit=False)
        return 2


SETUP_ERROR = "ADK_EVAL_GATE_SETUP_ERROR"  # the action's entrypoint could not prepare the step (requirements)


def _setup_failed(argv: list[str], env: Mapping[str, str]) -> int:
    """The entrypoint's error, reported like a bad input: one error line, exit 2, and a run's reports."""
    console = _console(env)
    reason = env[SETUP_ERROR]
    console.error(reason, limit=False)
    if _is_run(argv) and env.get("GITHUB_ACTIONS") == "true":
        reporting = {k: v for k, v in env.items() if k != SETUP_ERROR}
        _report_unevaluated(Arguments(command="run"), reporting, console, f"the gate could not run: {reason}")
    return 2


def _run(settings: Settings, console: Console) -> int:
    from adk_eval_gate.support.masking import drop_github_token

    drop_github_token(os.environ, settings.token())  # the settings keep it; agent code runs without it
    # The agents' worker starter first (it imports google-adk while this process loads the rest and plans), forked
    # once this process has imported what both need (google-genai's types, our models): imported once for all.
    from adk_eval_gate.runners.adk import start_early

    starter = start_early(settings)
    from adk_eval_gate.commands.run import run
    from adk_eval_gate.github.session import github_session

    with github_session(settings, console) as github:
        from adk_eval_gate.github import rerun

        return run(
            settings,
            console,
            github=github,
            find_baseline=_baseline_lookup(settings, github, console),
            find_earlier=functools.partial(rerun.find, settings, github),
            starter=starter,
        )


def _baseline_lookup(settings: Settings, client: GitHubClient | None, console: Console) -> FindBaseline:
    """The baseline lookup the commands are handed: ``--baseline``, or the base branch's results on GitHub."""
    from adk_eval_gate.github import baseline as baselines

    return functools.partial(baselines.for_settings, settings, client, console=console)


def _supervised_run(args: Arguments, settings: Settings, *, console: Console, env: Mapping[str, str]) -> int:
    from adk_eval_gate.runners.workers import supervisor

    if not supervisor.available():  # no fork here: the run is its own judge
        return _run(settings, console)

    def lost(reason: str) -> int:  # the run ended without a verdict: an error, with every report
        console.error(reason, limit=False)
        return _report_unevaluated(args, env, console, reason)

    def child() -> int:
        return _guarded(args, env, console, lambda: _run(settings, console))

    return supervisor.supervised(child, results=settings.results_path, on_lost=lost)


def _is_run(argv: Sequence[str]) -> bool:
    return next((arg for arg in argv if not arg.startswith("-")), None) == "run"


def entry() -> None:
    """The console script: ``main`` (for ``run``, under a supervising parent), its exit code the process's."""
    sys.exit(main(None, supervised=True))
