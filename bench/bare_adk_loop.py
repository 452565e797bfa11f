"""A bare loop of ADK's own ``Runner`` over an eval set: what running the cases costs without any gate.

One process, one asyncio loop, ``--parallelism`` cases at once; per case a fresh in-memory session and a fresh
``Runner`` (as ADK's eval does), the user turns sent one after the other and the events read to the end. No
scoring, no results, no reports: the floor the gate's cost is measured against (``bench/gate_cost.py``).

    python bench/bare_adk_loop.py AGENT_FOLDER EVALSET_JSON [--parallelism 32] [--freeze-gc]

``--freeze-gc`` moves everything imported before the loop out of the garbage collector's sweeps
(``gc.freeze()``), as the gate's worker processes do (``support/collector.py``): it shows how much of the
difference is that alone. The workers also remember ADK's failed per-turn import (``runners/adk_case.py``'s
``MissingImports``); this loop runs ADK as it is.

Prints ``cases N, turns N, events N, loop S s`` (the loop's own wall time, imports excluded).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import json
import sys
import time
from pathlib import Path
from typing import Any


async def _one_case(agent: Any, case: dict[str, Any], number: int) -> tuple[int, int]:
    from google.adk.runners import Runner
    from google.adk.sessions.in_memory_session_service import InMemorySessionService
    from google.genai import types

    sessions = InMemorySessionService()
    session_id = f"bare-{number}"
    await sessions.create_session(app_name="bare", user_id="user", session_id=session_id)
    runner = Runner(app_name="bare", agent=agent, session_service=sessions)
    events = 0
    for turn in case["conversation"]:
        message = types.Content.model_validate(turn["user_content"])
        async for _event in runner.run_async(user_id="user", session_id=session_id, new_message=message):
            events += 1
    await runner.close()
    return len(case["conversation"]), events


async def _loop(agent: Any, cases: list[dict[str, Any]], parallelism: int) -> tuple[int, int]:
    semaphore = asyncio.Semaphore(parallelism)

    async def bounded(case: dict[str, Any], number: int) -> tuple[int, int]:
        async with semaphore:
            return await _one_case(agent, case, number)

    done = await asyncio.gather(*(bounded(case, number) for number, case in enumerate(cases)))
    return sum(turns for turns, _ in done), sum(events for _, events in done)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("agent", type=Path, help="an ADK agent folder (its parent goes on sys.path)")
    parser.add_argument("evalset", type=Path)
    parser.add_argument("--parallelism", type=int, default=32)
    parser.add_argument("--freeze-gc", action="store_true", help="gc.freeze() before the loop")
    args = parser.parse_args()
    sys.path.insert(0, str(args.agent.resolve().parent))
    agent = importlib.import_module(args.agent.name).agent.root_agent
    cases = json.loads(args.evalset.read_text(encoding="utf-8"))["eval_cases"]
    if args.freeze_gc:
        gc.freeze()
    started = time.perf_counter()
    turns, events = asyncio.run(_loop(agent, cases, args.parallelism))
    print(f"cases {len(cases)}, turns {turns}, events {events}, loop {time.perf_counter() - started:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
