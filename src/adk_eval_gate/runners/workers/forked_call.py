"""One call in a forked process of its own (``call_in_worker``), and what the agent worker processes share with it:
their output passed on line by line (``support.console.relay_lines``), and how a process ended, in words (``ended``).

``validate`` and ``AgentEvaluator.evaluate`` import the agents this way, as ``run``'s workers import them: an agent
whose import calls ``os._exit`` or crashes ends that process, not the caller. The answer comes back as data
(``messages``: one JSON frame, read against the schema the caller gives); what the code there may write on the
connection instead is that call's error, never run in the caller.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import pydantic

from adk_eval_gate.runners.workers.messages import BadMessage, CallAnswer, call_answer, call_result, receive_frame
from adk_eval_gate.runners.workers.worker_side import call_main
from adk_eval_gate.support.console import relay_lines

T = TypeVar("T")
MAX_RAISED = 2000  # characters of why the call raised that the caller is told


def ended(exitcode: int | None) -> str:
    """How a process ended: ``exited with code N`` or ``was killed by SIGNAL``."""
    if exitcode is not None and exitcode < 0:
        return f"was killed by {signal.Signals(-exitcode).name}"
    return f"exited with code {exitcode}"


class WorkerLost(Exception):
    """A process of ``call_in_worker`` ended, or ran out of time, before it returned."""


def call_in_worker(
    work: Callable[[], Any], *, answer: pydantic.TypeAdapter[T], on_output: Callable[[str], None], timeout: float
) -> T:
    """``work()`` in a forked process of its own (what it prints goes to ``on_output``); its result, sent back as
    JSON and read as ``answer``.

    Raises ``WorkerLost`` saying why there is no result: ``work`` raised, its process ended (``os._exit``, a
    crash), it sent something that is not its answer, or it did not finish within ``timeout`` seconds (it is
    killed then).
    """
    context = multiprocessing.get_context("fork")
    ours, theirs = context.Pipe(duplex=False)
    output_read, output_write = os.pipe()
    process = context.Process(
        target=call_main,
        args=(theirs, work),
        kwargs={"others": [ours.fileno(), output_read], "output": output_write},
        name="adk-eval-gate-call",
        daemon=True,
    )
    process.start()
    theirs.close()
    os.close(output_write)
    relay = threading.Thread(
        target=relay_lines, args=(output_read, on_output), name="adk-eval-gate-call-output", daemon=True
    )
    relay.start()
    reply: CallAnswer | None = None
    timed_out, refused = False, None
    try:
        if ours.poll(timeout):
            reply = call_answer(receive_frame(ours))
        else:
            timed_out = True
    except BadMessage as error:
        refused = str(error)
    except (EOFError, OSError):  # it ended without an answer
        pass
    finally:
        ours.close()
    if timed_out or refused:
        process.kill()
    process.join(5)
    relay.join(5)
    if timed_out:
        raise WorkerLost(f"did not finish within {timeout:g} s")
    if refused is not None:
        raise WorkerLost(_refused(refused))
    if reply is None:
        raise WorkerLost(f"its process {ended(process.exitcode)} (os._exit() or a crash)")
    if reply.raised is not None:
        raise WorkerLost(f"raised {reply.raised[:MAX_RAISED]}")
    try:
        return call_result(reply.returned, answer)
    except BadMessage as error:
        raise WorkerLost(_refused(str(error))) from None


def _refused(what: str) -> str:
    return f"sent {what} instead of its answer (code there wrote on the gate's connection)"
