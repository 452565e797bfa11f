"""The command line's grammar: each command with its own arguments, and the shared options from ``OPTIONS`` (the
flags of the settings), parsed into ``Arguments``. Imports nothing heavy, so ``--help`` is instant."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from adk_eval_gate import __version__
from adk_eval_gate.config.options import OPTIONS

DESCRIPTION = (
    "Run Google ADK agent evaluations as a CI gate: ADK-identical scores, JUnit XML, a Markdown summary, "
    "results.json, a pull-request comment and regressions against the base branch."
)
EPILOG = "Exit codes: 0 passed, 1 the gate failed, 2 usage or configuration error."


def _add_options(parser: argparse.ArgumentParser, command: str) -> None:
    for option in OPTIONS:
        if command not in option.commands or option.field == "paths":
            continue
        kwargs: dict[str, Any] = {"dest": option.field, "help": option.help, "default": None}
        if option.kind == "bool":
            kwargs["action"] = "store_const"
            kwargs["const"] = True
        elif option.repeatable or option.kind in {"list", "lines"}:
            kwargs["action"] = "append"
        if option.choices:
            kwargs["choices"] = option.choices
        if option.metavar and option.kind != "bool":
            kwargs["metavar"] = option.metavar
        parser.add_argument(option.flag, **kwargs)


class Arguments(argparse.Namespace):
    """The parsed command line, typed: the command's own arguments, and the options that become settings."""

    command: str | None = None
    paths: list[str] | None = None
    results_file: str = ""
    comment: bool | None = None
    pr: int | None = None
    exit_zero: bool = False
    inputs: list[str]
    allow_incomplete: bool = False
    old: str = ""
    new: str = ""
    initial_session: str | None = None
    output: str | None = None

    def option_values(self) -> dict[str, Any]:
        """What the command line set for each option (None: not given, so the action input or default holds)."""
        values = {option.field: getattr(self, option.field, None) for option in OPTIONS}
        values["paths"] = self.paths or None
        return values


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH[:CASE,...]",
        help="eval files or folders (default: .); FILE:case1,case2 selects cases",
    )


def _validate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="eval files or folders (default: .)")


def _report_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results_file", metavar="RESULTS", help="a results.json")
    parser.add_argument(
        "--comment", action="store_const", const=True, default=None, help="post or update the pull-request comment"
    )
    parser.add_argument(
        "--pr", type=int, default=None, metavar="NUMBER", help="pull request to comment on (default: from the event)"
    )
    _switch(
        parser,
        "--exit-zero",
        "exit 0 even when the saved verdict failed (a workflow that only publishes, such as the comment "
        "workflow of the fork set-up; the evaluating workflow's check already carries the verdict)",
    )


def _switch(parser: argparse.ArgumentParser, flag: str, help_text: str) -> None:
    """A command's own on/off flag (the shared options come from OPTIONS)."""
    parser.add_argument(flag, dest=flag.removeprefix("--").replace("-", "_"), action="store_true", help=help_text)


def _label_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results_file", metavar="RESULTS", help="a results.json of a run with LLM judge metrics")
    parser.add_argument(
        "--output",
        dest="output",
        metavar="FILE",
        default=None,
        help="the labels file to write (default: suggested.labels.json)",
    )


def _merge_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="RESULTS", help="results.json files (or folders holding them)")
    _switch(
        parser,
        "--allow-incomplete",
        "write the merged results even when a shard is missing, twice, or from another run: their status is "
        "error and the exit code 2",
    )


def _migrate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD", help="a legacy *.test.json, an eval set or an Agent Platform dataset")
    parser.add_argument(
        "new", metavar="NEW", help="the file to write: *.evalset.json, or *-dataset.json for an Agent Platform dataset"
    )
    parser.add_argument(
        "--initial-session",
        dest="initial_session",
        metavar="FILE",
        default=None,
        help="session file whose app_name, user_id and state seed the case",
    )


# name, one-line help, description, the command's own arguments (the shared options are added from OPTIONS)
COMMANDS: tuple[tuple[str, str, str, Callable[[argparse.ArgumentParser], None]], ...] = (
    (
        "run",
        "discover, run, score, report and gate",
        "Discover eval files, run the agents, score, report and gate.",
        _run_arguments,
    ),
    (
        "validate",
        "check every eval file and config, its agent and custom metrics; runs nothing",
        "Load and check every eval file and config, that each file finds its agent (adk runner) and that its custom "
        "metric functions import, without running an agent or calling any service.",
        _validate_arguments,
    ),
    (
        "report",
        "re-render reports from a results.json, post the PR comment",
        "Re-render the JUnit XML and summary from saved results and optionally post the pull-request comment.",
        _report_arguments,
    ),
    (
        "merge",
        "combine the results.json files of a sharded run",
        "Combine the results.json files of the shards of a matrix run into one, identical to an unsharded run's.",
        _merge_arguments,
    ),
    (
        "calibrate",
        "measure each LLM judge's agreement with the human labels (*.labels.json)",
        "Run each labelled LLM judge metric's judge on its human labels as run would (no agent runs) and write its "
        "agreement with them, Cohen's kappa with a 95% interval, to calibration.json and calibration.md.",
        _validate_arguments,
    ),
    (
        "label",
        "write a labels file from a run's judged turns, for people to confirm",
        "Write a labels file (*.labels.json) with a label per turn an LLM judge metric scored in a results.json, the "
        "judge's verdict filled in as a suggestion and unconfirmed until a person confirms it.",
        _label_arguments,
    ),
    (
        "migrate",
        "convert a legacy *.test.json to an EvalSet file, an EvalSet to an Agent Platform dataset and back",
        "Convert a legacy query-list *.test.json into an EvalSet file, as ADK's migrate_eval_data_to_new_schema does; "
        "an EvalSet (or a legacy file) into an Agent Platform dataset (NEW named *-dataset.json), keeping its session "
        "state; an Agent Platform dataset into an EvalSet.",
        _migrate_arguments,
    ),
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="adk-eval-gate", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"adk-eval-gate {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, summary, description, add_arguments in COMMANDS:
        command = commands.add_parser(
            name, help=summary, description=description, epilog=EPILOG if name == "run" else None
        )
        add_arguments(command)
        _add_options(command, name)
    return parser
