"""The AgentEvaluator calls of a repository's tests, read with ``ast`` and never run: adk-samples' real test modules,
every way of writing the eval path the readers know, and test modules that are broken or hostile."""

from __future__ import annotations

import os
import textwrap
import tracemalloc
from pathlib import Path

import pytest

from adk_eval_gate.inputs.test_modules import MAX_MODULE_BYTES, EvaluatorCall, SkippedCall, read_calls
from tests.inputs.layouts import LAYOUTS


def _calls(root: Path, module: str, source: str, *, project: Path | None = None) -> list[EvaluatorCall | SkippedCall]:
    test_file = root / module
    test_file.parent.mkdir(parents=True, exist_ok=True)
    test_file.write_text(textwrap.dedent(source), encoding="utf-8")
    found = read_calls(test_file, project=project or root, root=root)
    return sorted([*found.calls, *found.skipped], key=lambda call: call.line)


def _touch(*paths: Path) -> None:
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("[]", encoding="utf-8")


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        (
            "customer-service/eval/test_eval.py",
            [
                (31, "customer_service", "customer-service/eval/eval_data/simple.test.json", 1),
                (40, "customer_service", "customer-service/eval/eval_data/full_conversation.test.json", 1),
            ],
        ),
        (
            "travel-concierge/eval/test_eval.py",
            [
                (32, "travel_concierge", "travel-concierge/eval/data/inspire.test.json", 4),
                (42, "travel_concierge", "travel-concierge/eval/data/pretrip.test.json", 4),
                (52, "travel_concierge", "travel-concierge/eval/data/intrip.test.json", 4),
            ],
        ),
        ("llm-auditor/eval/test_eval.py", [(31, "llm_auditor", "llm-auditor/eval/data", 1)]),
    ],
)
def test_adk_samples_test_modules_name_their_agent_files_and_runs(module: str, expected: list[object]) -> None:
    """os.path.join(os.path.dirname(__file__), ...), str(pathlib.Path(__file__).parent / ...) and a folder."""
    agents = (LAYOUTS / "adk_samples" / "python" / "agents").resolve()
    module_calls = read_calls(agents / module, project=agents / module.split("/", maxsplit=1)[0], root=agents)
    calls, skipped = module_calls.calls, module_calls.skipped
    assert skipped == []
    found = [(c.line, c.agent_module, c.path.relative_to(agents).as_posix(), c.num_runs) for c in calls]
    assert found == expected
    assert all(call.num_runs_given and call.agent_name is None for call in calls)


def test_every_written_form_of_the_eval_path_is_read(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    _touch(
        root / "proj" / "tests" / "eval_data" / "a.test.json",
        root / "proj" / "tests" / "integration" / "b.test.json",
        root / "proj" / "evals" / "c.test.json",
        root / "proj" / "tests" / "integration" / "nested" / "d.test.json",
        root / "proj" / "tests" / "integration" / "e.evalset.json",
    )
    found = _calls(
        root,
        "proj/tests/integration/test_agent.py",
        """
        import os
        import pathlib
        from pathlib import Path

        from google.adk.evaluation import AgentEvaluator as Evaluator
        from google.adk.evaluation import agent_evaluator

        HERE = os.path.dirname(os.path.abspath(__file__))
        EVALS = Path(__file__).resolve().parent.parent.parent / "evals"


        async def test_project_relative():
            await Evaluator.evaluate("bot", "tests/eval_data/a.test.json")


        def test_beside_the_test_file():
            Evaluator.evaluate(agent_module="bot", eval_dataset_file_path_or_dir="b.test.json", num_runs=3)


        def test_module_constant():
            agent_evaluator.AgentEvaluator.evaluate("bot.agent", str(EVALS / "c.test.json"), 5, "helper")


        def test_function_name_and_join():
            path = os.path.join(HERE, "nested", "d.test.json")
            Evaluator.evaluate("bot", path, num_runs=1)


        def test_joinpath_and_fstring():
            Evaluator.evaluate("bot", str(pathlib.Path(__file__).parent.joinpath("nested")))
            Evaluator.evaluate("bot", f"{HERE}/e.evalset.json", num_runs=2)
        """,
        project=root / "proj",
    )
    assert all(isinstance(call, EvaluatorCall) for call in found), found
    rows = [
        (call.agent_module, call.agent_name, call.path.relative_to(root).as_posix(), call.num_runs, call.num_runs_given)
        for call in found
        if isinstance(call, EvaluatorCall)
    ]
    assert rows == [
        ("bot", None, "proj/tests/eval_data/a.test.json", 2, False),  # ADK's default num_runs
        ("bot", None, "proj/tests/integration/b.test.json", 3, True),
        ("bot.agent", "helper", "proj/evals/c.test.json", 5, True),
        ("bot", None, "proj/tests/integration/nested/d.test.json", 1, True),
        ("bot", None, "proj/tests/integration/nested", 2, False),
        ("bot", None, "proj/tests/integration/e.evalset.json", 2, True),
    ]


def test_evaluate_eval_set_counts_when_its_eval_set_is_read_from_a_named_file(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    _touch(root / "evals" / "set.evalset.json")
    found = _calls(
        root,
        "test_sets.py",
        """
        import os
        from google.adk.evaluation.agent_evaluator import AgentEvaluator
        from google.adk.evaluation.eval_set import EvalSet


        def load(path):
            with open(path) as handle:
                return EvalSet.model_validate_json(handle.read())


        async def test_from_a_file():
            eval_set = load(os.path.join(os.path.dirname(__file__), "evals", "set.evalset.json"))
            await AgentEvaluator.evaluate_eval_set("bot", eval_set, num_runs=3)


        async def test_built_in_code():
            await AgentEvaluator.evaluate_eval_set("bot", EvalSet(eval_set_id="x", eval_cases=[]))
        """,
    )
    [from_file, in_code] = found
    assert isinstance(from_file, EvaluatorCall) and from_file.path == root / "evals" / "set.evalset.json"
    assert from_file.method == "evaluate_eval_set" and from_file.num_runs == 3
    assert isinstance(in_code, SkippedCall) and "builds its eval set in code" in in_code.reason


def test_calls_whose_arguments_are_known_only_when_they_run_are_skipped_with_the_reason(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    _touch(root / "evals" / "a.test.json")
    found = _calls(
        root,
        "test_computed.py",
        """
        import pytest
        from google.adk.evaluation.agent_evaluator import AgentEvaluator

        AGENTS = ["one", "two"]


        @pytest.mark.parametrize("path", ["evals/a.test.json"])
        def test_parametrized(path):
            AgentEvaluator.evaluate("bot", path)


        def test_agent_in_a_loop():
            for agent in AGENTS:
                AgentEvaluator.evaluate(agent, "evals/a.test.json")


        def test_unpacked(options):
            AgentEvaluator.evaluate("bot", **options)


        def test_missing_file():
            AgentEvaluator.evaluate("bot", "evals/missing.test.json")


        def test_outside():
            AgentEvaluator.evaluate("bot", "../../../../../../../../etc")


        def test_runs_computed():
            AgentEvaluator.evaluate("bot", "evals/a.test.json", num_runs=len(AGENTS))


        def test_runs_out_of_range():
            AgentEvaluator.evaluate("bot", "evals/a.test.json", num_runs=1000)
        """,
    )
    reasons = [call.reason for call in found if isinstance(call, SkippedCall)]
    assert len(reasons) == len(found) == 7
    assert "computes its eval path" in reasons[0]
    assert "computes its agent module" in reasons[1]
    assert "unpacks its arguments" in reasons[2]
    assert "'evals/missing.test.json', which does not exist" in reasons[3]
    assert "outside the repository" in reasons[4]
    assert "num_runs that is not a whole number from 1 to 100" in reasons[5] == reasons[6]


def test_a_test_module_is_never_run(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    marker = root / "ran"
    _touch(root / "a.test.json")
    found = _calls(
        root,
        "test_side_effects.py",
        f"""
        import pathlib
        pathlib.Path({str(marker)!r}).write_text("imported")
        raise SystemExit(3)
        from google.adk.evaluation.agent_evaluator import AgentEvaluator
        AgentEvaluator.evaluate("bot", "a.test.json")
        """,
    )
    assert [type(call).__name__ for call in found] == ["EvaluatorCall"]
    assert not marker.exists()


DEEP = pytest.mark.slow  # 200,000 terms: a fifth of a second of CPU (the family's five other cases stay fast)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"def test(:\n  AgentEvaluator.evaluate('bot', 'x')\n", "does not parse (line 1)"),
        (b"AgentEvaluator.evaluate('bot', 'x')\x00\n", "does not parse"),
        (b"AgentEvaluator.evaluate('bot', '\xff\xfe')\n", "does not parse"),
        (b"AgentEvaluator.evaluate('bot', " + b"(" * 300 + b"'x'" + b")" * 300 + b")\n", "does not parse"),
        (b"x = AgentEvaluator\ny = " + b"+".join([b"1"] * 2_000) + b"\n", "is nested too deeply to be read"),
        pytest.param(
            b"x = AgentEvaluator\ny = " + b"+".join([b"1"] * 200_000) + b"\n",
            "cannot be parsed (RecursionError)",
            marks=DEEP,
        ),
    ],
    ids=["syntax-error", "null-byte", "not-utf-8", "nested-parentheses", "deep-expression", "deeper-than-the-parser"],
)
def test_a_broken_test_module_is_one_note_never_a_crash(tmp_path: Path, content: bytes, reason: str) -> None:
    module = tmp_path / "test_broken.py"
    module.write_bytes(content)
    found = read_calls(module, project=tmp_path, root=tmp_path)
    assert found.calls == []
    [note] = found.skipped
    assert note.line == 0 and reason in note.reason, note


def test_a_huge_test_module_is_not_read(tmp_path: Path) -> None:
    module = tmp_path / "test_huge.py"
    with module.open("wb") as handle:
        handle.write(b"AgentEvaluator.evaluate('bot', 'x')\n")
        handle.truncate(50 * 1024 * 1024)  # 50 MB, sparse
    found = read_calls(module, project=tmp_path, root=tmp_path)
    [note] = found.skipped
    assert found.calls == [] and f"more than the {MAX_MODULE_BYTES:,} read" in note.reason


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.timeout(30)
def test_special_files_named_like_test_modules_are_not_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "test_fifo.py"
    os.mkfifo(fifo)
    loop = tmp_path / "test_loop.py"
    loop.symlink_to(loop)
    for special in (fifo, loop):
        found = read_calls(special, project=tmp_path, root=tmp_path)
        [note] = found.skipped
        assert found.calls == [] and ("not a regular file" in note.reason or "cannot be read" in note.reason)


def test_a_path_through_a_link_that_leaves_the_repository_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    _touch(outside / "secret.test.json")
    root = (tmp_path / "repo").resolve()
    root.mkdir()
    (root / "evals").symlink_to(outside)
    [call] = _calls(
        root,
        "test_link.py",
        """
        from google.adk.evaluation.agent_evaluator import AgentEvaluator
        AgentEvaluator.evaluate("bot", "evals/secret.test.json")
        """,
    )
    assert isinstance(call, SkippedCall) and "outside the repository" in call.reason


def _chain(count: int, first: str, step: str) -> str:
    """``count`` names, each bound to ``step`` made of the one before (``{previous}`` in it)."""
    lines = [f"a0 = {first}"]
    lines += [f"a{i} = {step.format(previous=f'a{i - 1}')}" for i in range(1, count)]
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("names", "reason"),
    [
        (_chain(20, '"x"', "f'" + "{{{previous}}}" * 10 + "'"), "makes a text longer than"),
        (_chain(20, repr("y" * 100_000), "{previous} + {previous}"), "makes a text longer than"),
        (_chain(20, repr("z" * 1_000), "{previous} + {previous}"), "makes a text longer than"),
        (_chain(16, '"w"', "os.path.join({previous}, {previous})"), "makes a path longer than"),
        (_chain(40, "unknown()", "f'{{{previous}}}{{{previous}}}'"), "computes its eval path"),
    ],
    ids=["f-strings-repeating-ten-times", "a-100-kb-literal-doubled", "a-1-kb-literal-doubled", "joined", "unknown"],
)
def test_names_that_grow_without_bound_are_one_note_and_the_other_calls_are_read(
    tmp_path: Path, names: str, reason: str
) -> None:
    """Each expression is evaluated once, and a text past the budget stops the call that reads it."""
    root = tmp_path.resolve()
    _touch(root / "evals" / "a.test.json")
    last = names.rsplit("\n", 1)[-1].split(" = ", maxsplit=1)[0]
    source = (
        "import os\nfrom google.adk.evaluation import AgentEvaluator\n"
        f"{names}\n"
        f"def test_grown():\n    AgentEvaluator.evaluate('bot', {last})\n"
        f"def test_set():\n    AgentEvaluator.evaluate_eval_set('bot', load({last}))\n"
        "def test_plain():\n    AgentEvaluator.evaluate('bot', 'evals/a.test.json', num_runs=3)\n"
    )
    tracemalloc.start()
    try:
        grown, eval_set, plain = _calls(root, "test_grown.py", source)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(grown, SkippedCall) and reason in grown.reason, grown
    assert isinstance(eval_set, SkippedCall), eval_set
    assert isinstance(plain, EvaluatorCall) and plain.num_runs == 3
    assert peak < 64 * 1024 * 1024


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("evals/a\\0.test.json", "holds a NUL character"),
        ("evals/" + "n" * 300 + ".test.json", "more than the 255 a file name may have"),
        ("/".join(["d" * 200] * 25), "more than the 4,096 a path may have"),
        ("../outside.test.json", "is outside the repository"),
        ("/proc/self/status", "is outside the repository"),
    ],
    ids=["nul", "long-name", "long-path", "parent", "absolute"],
)
def test_a_path_no_file_can_have_is_that_call_s_note(tmp_path: Path, path: str, reason: str) -> None:
    _touch(tmp_path / "outside.test.json")
    root = (tmp_path / "repo").resolve()
    found = _calls(
        root,
        "test_paths.py",
        f"""
        from google.adk.evaluation import AgentEvaluator
        AgentEvaluator.evaluate("bot", "{path}")
        """,
    )
    [call] = found
    assert isinstance(call, SkippedCall) and reason in call.reason, call
    assert len(call.reason) < 300 and str(tmp_path) not in call.reason


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ('"bot\\0", "a.test.json"', "which is not a dotted module name"),
        (f'"{"m" * 300}", "a.test.json"', "which is not a dotted module name"),
        ('"agents/bot", "a.test.json"', "which is not a dotted module name"),
        ('"bot", "a.test.json", agent_name="x\\0"', "which is not an agent's name"),
        ('"bot", "a.test.json", agent_name="<b>sub</b>"', "which is not an agent's name"),
    ],
)
def test_an_agent_module_or_name_no_agent_can_have_is_that_call_s_note(
    tmp_path: Path, arguments: str, reason: str
) -> None:
    root = tmp_path.resolve()
    _touch(root / "a.test.json")
    [call] = _calls(root, "test_names.py", f"from x import AgentEvaluator\nAgentEvaluator.evaluate({arguments})\n")
    assert isinstance(call, SkippedCall) and reason in call.reason and len(call.reason) < 300, call


def test_only_the_calls_a_sync_test_never_awaits_are_noted(tmp_path: Path) -> None:
    """A bare call in a sync test makes a coroutine nobody awaits; awaited, asyncio.run and helpers that return the
    coroutine are fine."""
    root = tmp_path.resolve()
    _touch(root / "a.test.json")
    module = root / "test_forms.py"
    module.write_text(
        textwrap.dedent(
            """
            import asyncio
            from google.adk.evaluation.agent_evaluator import AgentEvaluator

            def test_bare():
                AgentEvaluator.evaluate("bot", "a.test.json")

            async def test_awaited():
                await AgentEvaluator.evaluate("bot", "a.test.json")

            def test_run():
                asyncio.run(AgentEvaluator.evaluate("bot", "a.test.json"))

            def evaluation():
                return AgentEvaluator.evaluate("bot", "a.test.json")

            class TestAgent:
                def test_method(self):
                    if True:
                        AgentEvaluator.evaluate_eval_set("bot", load("a.test.json"))
            """
        ),
        encoding="utf-8",
    )
    found = read_calls(module, project=root, root=root)
    assert found.unawaited == [6, 20]
    assert len(found.calls) == 5 and found.skipped == []
