"""The table of options: each is a command-line flag and, for the action, an ``INPUT_<NAME>`` variable.

Kept free of heavy imports: ``cli`` builds its parser from this table, and ``settings`` reads both sources
through it, so the CLI and the action share one code path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from adk_eval_gate.config.runner_kinds import RUNNER_NAMES

Kind = Literal["str", "int", "float", "bool", "list", "lines", "path", "shard"]
RUN = ("run",)
RUN_REPORT = ("run", "report")


@dataclass(frozen=True)
class Option:
    field: str
    flag: str
    help: str
    kind: Kind = "str"
    input: str | None = None  # the action input (kebab-case); None: CLI only
    commands: tuple[str, ...] = RUN
    choices: tuple[str, ...] | None = None
    metavar: str | None = None
    repeatable: bool = False
    minimum: float | None = None  # an int or float option's bounds (a typo must not mean hours of work)
    maximum: float | None = None
    above: bool = False  # the minimum itself is not allowed
    unit: str = ""  # of the bounds, in errors ("seconds")
    must_exist: str | None = None  # a path that must name a file: what it is, for the error ("baseline")
    hint: str | None = None  # what to do when it does not exist


OPTIONS: tuple[Option, ...] = (
    Option(
        "paths",
        "--paths",
        "eval files or folders; FILE:case1,case2 selects cases (default: ., unless --dataset is given)",
        "list",
        "paths",
        ("run", "validate", "calibrate"),
    ),
    Option(
        "dataset",
        "--dataset",
        "a Vertex AI-style dataset, JSONL or CSV, of any name (repeatable; the input takes one per line); "
        "without PATH arguments only the datasets run",
        "lines",
        "dataset",
        ("run", "validate", "calibrate"),
        repeatable=True,
        metavar="FILE",
    ),
    Option(
        "include",
        "--include",
        "only files matching this glob, by path or by name at any depth (repeatable; ** matches folders)",
        "list",
        "include",
        ("run", "validate", "calibrate"),
        repeatable=True,
        metavar="GLOB",
    ),
    Option(
        "exclude",
        "--exclude",
        "skip files matching this glob, by path or by name at any depth (repeatable)",
        "list",
        "exclude",
        ("run", "validate", "calibrate"),
        repeatable=True,
        metavar="GLOB",
    ),
    Option(
        "config",
        "--config",
        "use this config for every file instead of the test_config.json found per file",
        "path",
        "config",
        ("run", "validate", "calibrate"),
        metavar="FILE",
        must_exist="config file",
    ),
    Option(
        "allow_unknown_fields",
        "--allow-unknown-fields",
        "keys of eval files and configs that ADK ignores (a misspelt criterion option) are expected: validate "
        "passes with them, and run's summary does not list them",
        "bool",
        "allow-unknown-fields",
        ("run", "validate", "calibrate"),
    ),
    Option(
        "legacy_session_file",
        "--legacy-session-file",
        "seed a legacy query list's session from the initial.session.json beside it (ADK reads no such file)",
        "bool",
        "legacy-session-file",
        ("run", "validate"),
    ),
    Option(
        "lenient_judge_labels",
        "--lenient-judge-labels",
        "read every judge metric's answer labels more leniently than ADK (Valid, Not applicable, markdown)",
        "bool",
        "lenient-judge-labels",
        ("run",),
    ),
    Option(
        "runner",
        "--runner",
        "how to get the agent's answers (default: adk)",
        "str",
        "runner",
        ("run", "validate"),
        choices=RUNNER_NAMES,
    ),
    Option(
        "agent",
        "--agent",
        "agent folder or dotted module for every eval file (default: each file's own, found as ADK's tools find it: "
        "--agent-map, the AgentEvaluator calls of the tests, the agent folder above it, agents-cli's manifest)",
        "str",
        "agent",
        ("run", "validate"),
        metavar="PATH|MODULE",
    ),
    Option(
        "agent_map",
        "--agent-map",
        "GLOB=AGENT: the eval files matching GLOB (repository-relative, ** matches folders) run with AGENT, an agent "
        "folder or dotted module (repeatable; the input takes one per line; before pyproject.toml's "
        "[tool.adk-eval-gate.agents] table)",
        "lines",
        "agent-map",
        ("run", "validate"),
        repeatable=True,
        metavar="GLOB=AGENT",
    ),
    Option(
        "agent_url",
        "--agent-url",
        "base URL of an ADK api_server or deployed agent (http runner), or of an A2A server (a2a runner)",
        "str",
        "agent-url",
        metavar="URL",
    ),
    Option(
        "agent_headers",
        "--agent-header",
        "HTTP header for the http and a2a runners, 'Name: value' (repeatable; $VAR and ${VAR} are read from the "
        "environment)",
        "lines",
        "agent-headers",
        repeatable=True,
        metavar="NAME:VALUE",
    ),
    Option(
        "recorded",
        "--recorded",
        "recorded runner: an ADK *.evalset_result.json, a folder of them (e.g. .adk/eval_history), or a results.json",
        "path",
        "recorded",
        metavar="PATH",
    ),
    Option(
        "num_runs",
        "--num-runs",
        "run every case N times in fresh sessions (default: 1, at most 100)",
        "int",
        "num-runs",
        metavar="N",
        minimum=1,
        maximum=100,
    ),
    Option(
        "parallelism",
        "--parallelism",
        "cases run at once (default: 8, at most 1000)",
        "int",
        "parallelism",
        metavar="N",
        minimum=1,
        maximum=1000,
    ),
    Option(
        "workers",
        "--workers",
        "adk runner: processes that run the agents (default: one per core, at most one per case run at once "
        "(--parallelism); 0 runs them in this process, where a tool that blocks defeats --timeout)",
        "int",
        None,
        metavar="N",
        minimum=0,
        maximum=64,
    ),
    Option(
        "timeout",
        "--timeout",
        "seconds allowed per case run (default: 300); validate: for importing each agent or custom metric module",
        "float",
        "timeout",
        ("run", "validate"),
        metavar="SECONDS",
        minimum=0,
        above=True,
        unit="seconds",
    ),
    Option(
        "shard",
        "--shard",
        "run shard I of N (stable split by case id), e.g. 2/4",
        "shard",
        "shard",
        metavar="I/N",
    ),
    Option(
        "judge_parallelism",
        "--judge-parallelism",
        "LLM judge calls at once for the whole run (default: 8)",
        "int",
        "judge-parallelism",
        ("run", "calibrate"),
        metavar="N",
        minimum=1,
        maximum=256,
    ),
    Option(
        "judge_labels",
        "--judge-labels",
        "human labels of the LLM judges (*.labels.json; repeatable; the input takes one per line): each judge metric "
        "with labels gates only when its agreement with them is high enough (default: the *.labels.json files found)",
        "lines",
        "judge-labels",
        ("run", "validate", "calibrate"),
        repeatable=True,
        metavar="FILE",
    ),
    Option(
        "min_judge_kappa",
        "--min-judge-kappa",
        "a labelled judge metric gates only when the lower bound of its kappa's 95% interval is at least this "
        "(default: 0.6)",
        "float",
        "min-judge-kappa",
        ("run", "calibrate"),
        metavar="K",
        minimum=-1,
        maximum=1,
    ),
    Option(
        "min_judge_labels",
        "--min-judge-labels",
        "a labelled judge metric gates only with at least this many confirmed labels (default: 30)",
        "int",
        "min-judge-labels",
        ("run", "calibrate"),
        metavar="N",
        minimum=1,
        maximum=1_000_000,
    ),
    Option(
        "require_calibrated_judges",
        "--require-calibrated-judges",
        "a judge metric that has not earned its gate (too few labels, too little agreement) is an error, not "
        "informational",
        "bool",
        "require-calibrated-judges",
    ),
    Option(
        "cache_dir",
        "--cache-dir",
        "cache judge answers here (keep it with actions/cache)",
        "path",
        "cache-dir",
        ("run", "calibrate"),
        metavar="DIR",
    ),
    Option(
        "output_dir",
        "--output-dir",
        "folder for results.json, junit.xml, summary.md and report.html (default: adk-eval-results)",
        "path",
        "output-dir",
        ("run", "report", "merge", "calibrate"),
        metavar="DIR",
    ),
    Option(
        "results",
        "--results",
        "results.json path (default: OUTPUT_DIR/results.json)",
        "path",
        None,
        ("run", "merge"),
        metavar="FILE",
    ),
    Option(
        "junit",
        "--junit",
        "JUnit XML path (default: OUTPUT_DIR/junit.xml)",
        "path",
        None,
        RUN_REPORT,
        metavar="FILE",
    ),
    Option(
        "summary",
        "--summary",
        "Markdown summary path (default: OUTPUT_DIR/summary.md)",
        "path",
        None,
        RUN_REPORT,
        metavar="FILE",
    ),
    Option(
        "html",
        "--html",
        "self-contained HTML report path (default: OUTPUT_DIR/report.html)",
        "path",
        None,
        ("run", "report", "merge"),
        metavar="FILE",
    ),
    Option(
        "baseline",
        "--baseline",
        "base-branch results.json to compare with (default in a pull request: the base branch's artifact)",
        "path",
        "baseline",
        RUN_REPORT,
        metavar="FILE",
        must_exist="baseline",
        hint="give a results.json from an earlier run",
    ),
    Option(
        "artifact_name",
        "--artifact-name",
        "name of the results artifact on the base branch (default: adk-eval-results)",
        "str",
        "artifact-name",
        RUN_REPORT,
    ),
    Option(
        "regression_tolerance",
        "--regression-tolerance",
        "a drop larger than this is a regression (default: 0)",
        "float",
        "regression-tolerance",
        RUN_REPORT,
        metavar="X",
        minimum=0,
    ),
    Option(
        "fail_on_regression",
        "--fail-on-regression",
        "fail the gate on significant regressions even when thresholds pass",
        "bool",
        "fail-on-regression",
        RUN_REPORT,
    ),
    Option(
        "verbose",
        "--verbose",
        "print what ADK and the agents log as it happens (it is always kept with each case run in results.json), and "
        "with --only-affected why each case runs",
        "bool",
    ),
    Option(
        "quarantine",
        "--quarantine",
        "cases that run and are reported but never fail the gate: FILE:CASE selectors, globs allowed "
        "(repeatable; the input takes one per line)",
        "lines",
        "quarantine",
        repeatable=True,
        metavar="FILE[:CASE]",
    ),
    Option(
        "pass_rule",
        "--pass-rule",
        "how a case with several runs passes: mean (ADK's: each metric's mean over every turn of the runs meets its "
        "threshold), all (every run passes) or majority (more than half of the runs pass)",
        "str",
        "pass-rule",
        choices=("mean", "all", "majority"),
    ),
    Option(
        "confirm_failures",
        "--confirm-failures",
        "run each case that failed or regressed N more times once the first runs are done, and decide on all its "
        "runs (default: 0, at most 20)",
        "int",
        "confirm-failures",
        metavar="N",
        minimum=0,
        maximum=20,
    ),
    Option(
        "sequential",
        "--sequential",
        "run each case in waves and stop once its verdict is proven at --confidence, or can no longer change within "
        "--num-runs, which becomes the most runs a case gets",
        "bool",
        "sequential",
    ),
    Option(
        "confidence",
        "--confidence",
        "with --sequential: how sure a proven verdict is (default: 0.95, from 0.5 up to 0.999)",
        "float",
        "confidence",
        metavar="P",
        minimum=0.5,
        maximum=0.999,
    ),
    Option(
        "margin",
        "--margin",
        "with --sequential: the true shortfall below the threshold a proven pass tolerates (default: 0.10, from 0 "
        "up to 0.5)",
        "float",
        "margin",
        metavar="X",
        minimum=0,
        maximum=0.5,
    ),
    Option(
        "min_runs",
        "--min-runs",
        "with --sequential: the runs of a case's first wave; no case is decided on fewer (default: 2, at most 100)",
        "int",
        "min-runs",
        metavar="N",
        minimum=1,
        maximum=100,
    ),
    Option(
        "undecided",
        "--undecided",
        "with --sequential, a case still open after --num-runs: point (the verdict on its runs, labelled undecided), "
        "neutral (it fails the gate only when proven failing across the suite or with a proven regression) or fail",
        "str",
        "undecided",
        choices=("point", "neutral", "fail"),
    ),
    Option(
        "only_affected",
        "--only-affected",
        "with a baseline that recorded what each case depends on, run only the cases this change can touch (and new "
        "ones), and carry the others' results from the baseline; anything uncertain runs everything, saying why",
        "bool",
        "only-affected",
    ),
    Option(
        "always_affected",
        "--always-affected",
        "with --only-affected: files matching this glob, by path or by name at any depth (*.csv matches "
        "data/rates.csv), are inputs of every case, so a change to one runs everything (repeatable; the input takes "
        "one per line)",
        "lines",
        "always-affected",
        repeatable=True,
        metavar="GLOB",
    ),
    Option(
        "history",
        "--history",
        "in a pull request, also read the results of up to N earlier runs on the base branch and use "
        "each case's spread across them as its noise (default: 10; 0: the newest only)",
        "int",
        "history",
        RUN_REPORT,
        metavar="N",
        minimum=0,
        maximum=50,
    ),
    Option(
        "strict_comparison",
        "--strict-comparison",
        "count regressions of metrics that the base branch scored differently (another judge model or sampling, "
        "other criteria)",
        "bool",
        "strict-comparison",
        RUN_REPORT,
    ),
    Option(
        "prices",
        "--prices",
        "a JSON price table (the shipped table's format) whose models override or add to the shipped prices",
        "path",
        "prices",
        RUN_REPORT,
        metavar="FILE",
        must_exist="prices file",
        hint="give a JSON price table; see docs/cost.md",
    ),
    Option(
        "max_cost",
        "--max-cost",
        "fail the gate when the agent's cost for the whole run is over this many US dollars",
        "float",
        "max-cost",
        RUN_REPORT,
        metavar="USD",
        minimum=0,
    ),
    Option(
        "max_cost_increase",
        "--max-cost-increase",
        "fail the gate when the cost per pass of the cases both sides ran rose more than this percentage against "
        "the baseline, and the comparison flags the rise (beyond noise, at least 5%%)",
        "float",
        "max-cost-increase",
        RUN_REPORT,
        metavar="PCT",
        minimum=0,
    ),
    Option(
        "max_latency_increase",
        "--max-latency-increase",
        "fail the gate when the p95 turn time of the cases both sides ran rose more than this percentage against "
        "the baseline, and the comparison flags the rise (beyond noise by several runs or the history, at least "
        "20%% and 0.1 s)",
        "float",
        "max-latency-increase",
        RUN_REPORT,
        metavar="PCT",
        minimum=0,
    ),
    Option(
        "allow_not_evaluated",
        "--allow-not-evaluated",
        "do not fail the gate for metrics that could not be evaluated",
        "bool",
        "allow-not-evaluated",
        RUN_REPORT,
    ),
    Option(
        "comment_mode",
        "--comment-mode",
        "when to post the pull-request comment (default: always)",
        "str",
        "comment-mode",
        RUN_REPORT,
        choices=("always", "on-change", "on-failure", "off"),
    ),
    Option(
        "gate_id",
        "--gate-id",
        "identifies this gate's comment when a repository runs several (default: default)",
        "str",
        "gate-id",
        RUN_REPORT,
        metavar="ID",
    ),
    Option(
        "github_token",
        "--github-token",
        "token for the PR comment and the baseline artifact (default: $GITHUB_TOKEN)",
        "str",
        "github-token",
        RUN_REPORT,
        metavar="TOKEN",
    ),
    Option(
        "requirements",
        "--requirements",
        "the action installs these agent dependencies first: a "
        "requirements file, or 'pyproject' to install the repository",
        "str",
        "requirements",
        RUN,
        metavar="FILE",
    ),
)

BY_FIELD = {option.field: option for option in OPTIONS}
ACTION_INPUTS = {option.input: option for option in OPTIONS if option.input}
