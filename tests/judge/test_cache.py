"""The judge answer cache: content-addressed keys, atomic writes, corrupt entries ignored, entries that are not
regular files within the size limit ignored with one warning, and a second run that asks the (fake) judge nothing
at all."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path

from google.genai import types

from adk_eval_gate.judge.cache import MAX_ENTRY_BYTES, JudgeCache, cache_key
from adk_eval_gate.judge.gemini_client import ModelAnswer, config_fingerprint, request_config
from adk_eval_gate.judge.service import SCORED_RUN, JudgeService
from adk_eval_gate.model.eval_config import JudgeModelOptions
from tests.fakes.gemini_server import FakeGemini, Reply
from tests.judge.helpers import gemini, judge_service

__all__ = ["gemini"]
OPTIONS = JudgeModelOptions(judge_model="gemini-test")


def _key(**change: object) -> str:
    values: dict[str, object] = {"model": "m", "config": {"temperature": 0.0}, "prompt": "p", "sample": 0}
    values.update(change)
    return cache_key(**values)  # type: ignore[arg-type]


def test_the_key_covers_model_config_prompt_and_sample() -> None:
    base = _key()
    assert base == _key()
    assert len({base, _key(model="n"), _key(config={"temperature": 0.5}), _key(prompt="q"), _key(sample=1)}) == 5


def test_the_key_ignores_how_the_config_was_written() -> None:
    a = config_fingerprint(request_config(types.GenerateContentConfig(temperature=0.0, top_p=0.5)))
    b = config_fingerprint(request_config(types.GenerateContentConfig(top_p=0.5, temperature=0.0)))
    assert _key(config=a) == _key(config=b)


def test_round_trip_and_atomic_write(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "cache")
    key = _key()
    assert cache.get(key) is None
    cache.put(key, ModelAnswer("answer ✓", 10, 2))
    assert cache.get(key) == ModelAnswer("answer ✓", 10, 2)
    files = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert [p.name for p in files] == [f"{key}.json"]  # no temporary file left behind


def test_a_corrupt_entry_is_ignored(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    key = _key()
    path = tmp_path / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True)
    for content in ("{not json", "[]", json.dumps({"key": "other", "text": "x"}), json.dumps({"key": key, "text": 3})):
        path.write_text(content, encoding="utf-8")
        assert cache.get(key) is None
    path.write_bytes(b"\xff\xfe")
    assert cache.get(key) is None


def test_an_entry_with_a_number_too_large_for_a_float_is_ignored_and_counts_must_be_counts(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    key = _key()
    path = tmp_path / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True)
    for tokens, answer in (("1e400", None), ("-1e400", None), ("1" + "0" * 400, None), ("true", 0), ("-5", 0)):
        path.write_text(f'{{"key": "{key}", "text": "x", "input_tokens": {tokens}}}', encoding="utf-8")
        assert cache.get(key) == (None if answer is None else ModelAnswer("x", answer, 0)), tokens


def _get_within(cache: JudgeCache, key: str, seconds: float = 10.0) -> ModelAnswer | None:
    """``cache.get(key)``, failing the test instead of hanging when it blocks."""
    found: list[ModelAnswer | None] = []
    reader = threading.Thread(target=lambda: found.append(cache.get(key)), daemon=True)
    reader.start()
    reader.join(seconds)
    assert found, "reading the cache entry blocked"
    return found[0]


def test_entries_that_are_not_regular_files_within_the_limit_are_ignored_with_one_warning(tmp_path: Path) -> None:
    warnings: list[str] = []
    cache = JudgeCache(tmp_path, warn=warnings.append)
    keys = [_key(prompt=name) for name in ("fifo", "zero", "huge", "folder")]
    paths = [tmp_path / key[:2] / f"{key}.json" for key in keys]
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(paths[0])  # reading it would block forever
    paths[1].symlink_to("/dev/zero")  # reading it would never end
    with paths[2].open("wb") as huge:  # sparse: no disk space used
        huge.truncate(MAX_ENTRY_BYTES + 1)
    paths[3].mkdir()
    assert [_get_within(cache, key) for key in keys] == [None] * 4
    [warning] = warnings
    assert str(paths[0]) in warning and "a FIFO" in warning and "regular files" in warning
    assert cache.reader.ignored == 4
    cache.put(keys[2], ModelAnswer("fresh"))  # a regular entry written over the huge one is read again
    assert _get_within(cache, keys[2]) == ModelAnswer("fresh")


def test_an_unwritable_cache_is_not_fatal(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    cache = JudgeCache(blocker / "cache")
    cache.put(_key(), ModelAnswer("x"))
    assert cache.get(_key()) is None


def _ask_all(service: JudgeService, prompts: list[str], samples: int = 2) -> list[str]:
    async def go() -> list[str]:
        try:
            return await asyncio.gather(
                *(service.ask(options=OPTIONS, prompt=p, sample=s) for p in prompts for s in range(samples))
            )
        finally:
            await service.aclose()

    return asyncio.run(go())


def test_a_second_identical_run_makes_no_request(gemini: FakeGemini, tmp_path: Path) -> None:
    gemini.script = lambda request: Reply(text=f"answer {request.number}", prompt_tokens=5, output_tokens=1)
    first_service = judge_service(cache_dir=tmp_path)
    first = _ask_all(first_service, ["a", "b", "c"])
    assert gemini.count == 6  # samples are separate questions
    assert len(set(first)) == 6
    assert first_service.counters.input_tokens == 30

    second_service = judge_service(cache_dir=tmp_path)
    second = _ask_all(second_service, ["a", "b", "c"])
    assert second == first
    assert gemini.count == 6
    counters = second_service.counters
    assert (counters.calls, counters.cached, counters.input_tokens) == (0, 6, 0)


def test_a_changed_prompt_is_asked_again(gemini: FakeGemini, tmp_path: Path) -> None:
    gemini.script = lambda request: "ok"
    _ask_all(judge_service(cache_dir=tmp_path), ["a"], samples=1)
    _ask_all(judge_service(cache_dir=tmp_path), ["a", "a changed"], samples=1)
    assert gemini.prompts() == ["a", "a changed"]


def test_a_corrupt_entry_is_replaced_by_a_fresh_answer(gemini: FakeGemini, tmp_path: Path) -> None:
    gemini.script = lambda request: "fresh"
    _ask_all(judge_service(cache_dir=tmp_path), ["a"], samples=1)
    [entry] = list(tmp_path.rglob("*.json"))
    entry.write_text("garbage", encoding="utf-8")
    assert _ask_all(judge_service(cache_dir=tmp_path), ["a"], samples=1) == ["fresh"]
    assert gemini.count == 2
    assert json.loads(entry.read_text(encoding="utf-8"))["text"] == "fresh"


def test_the_same_question_at_once_is_asked_once_with_a_cache(gemini: FakeGemini, tmp_path: Path) -> None:
    gemini.script = lambda request: Reply(text="shared", delay=0.2)
    service = judge_service(cache_dir=tmp_path)
    assert _ask_all(service, ["same", "same", "same"], samples=1) == ["shared"] * 3
    assert gemini.count == 1
    assert (service.counters.calls, service.counters.cached) == (1, 2)


def test_without_a_cache_every_question_is_asked(gemini: FakeGemini) -> None:
    gemini.script = lambda request: "ok"
    _ask_all(judge_service(), ["same", "same"], samples=1)
    assert gemini.count == 2


def test_an_empty_answer_is_not_cached(gemini: FakeGemini, tmp_path: Path) -> None:
    gemini.enqueue("", "now with text")
    assert _ask_all(judge_service(cache_dir=tmp_path), ["a"], samples=1) == [""]
    assert _ask_all(judge_service(cache_dir=tmp_path), ["a"], samples=1) == ["now with text"]
    assert gemini.count == 2


def test_each_run_of_a_case_gets_its_own_samples_and_a_later_command_the_cached_ones(
    gemini: FakeGemini, tmp_path: Path
) -> None:
    """--num-runs and the re-runs of --confirm-failures must not be answered with run 1's verdicts."""
    gemini.script = lambda request: f"answer {request.number}"

    def ask_in_run(service: JudgeService, run_number: int) -> str:
        async def go() -> str:
            token = SCORED_RUN.set(run_number)
            try:
                return await service.ask(options=JudgeModelOptions(judge_model="gemini-test"), prompt="same")
            finally:
                SCORED_RUN.reset(token)
                await service.aclose()

        return asyncio.run(go())

    first = [ask_in_run(judge_service(cache_dir=tmp_path), run) for run in (1, 2, 3)]
    assert len(set(first)) == 3 and gemini.count == 3
    again = [ask_in_run(judge_service(cache_dir=tmp_path), run) for run in (1, 2, 3)]
    assert again == first and gemini.count == 3
    assert cache_key(model="m", config={}, prompt="p", sample=0) == cache_key(
        model="m", config={}, prompt="p", sample=0, run=1
    )  # run 1 keeps the keys of earlier versions


SECRET = "sk-env-secret-4f9a2c71"


def _masking(text: str) -> str:
    """The console's masking of a run whose environment holds ``SECRET``."""
    return text.replace(SECRET, "***")


def test_an_answer_quoting_a_secret_is_masked_before_the_cache_keeps_it(gemini: FakeGemini, tmp_path: Path) -> None:
    """The cache folder is restored where no secret exists (a fork's pull request): what it holds is masked."""
    gemini.script = lambda request: f'{{"is_the_agent_response_valid": "valid", "saw": "{SECRET}"}}'
    first = _ask_all(judge_service(cache_dir=tmp_path, mask=_masking), ["a"], samples=1)
    assert first == ['{"is_the_agent_response_valid": "valid", "saw": "***"}']
    entries = [path.read_text(encoding="utf-8") for path in tmp_path.rglob("*.json")]
    assert len(entries) == 1 and SECRET not in entries[0] and "***" in entries[0]
    again = _ask_all(judge_service(cache_dir=tmp_path, mask=_masking), ["a"], samples=1)
    assert again == first and gemini.count == 1  # a cache hit reads the same as the answer did


def test_an_entry_holding_a_secret_in_clear_is_read_masked(gemini: FakeGemini, tmp_path: Path) -> None:
    """An entry written by an earlier version, or planted in a restored folder, never brings a secret back."""
    key = cache_key(model="gemini-test", config=config_fingerprint(request_config(None)), prompt="a", sample=0)
    JudgeCache(tmp_path).put(key, ModelAnswer(f"the key is {SECRET}"))
    service = judge_service(cache_dir=tmp_path, mask=_masking)
    assert _ask_all(service, ["a"], samples=1) == ["the key is ***"]
    assert gemini.count == 0 and service.counters.cached == 1
