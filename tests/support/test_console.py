"""relayed_output: what code in the gate's own process writes, by Python or straight to file descriptors 1 and 2,
reaches the log through the console (masked, neutralised), while our own writers keep the terminal."""

from __future__ import annotations

import io
import os
import sys
import tempfile

from adk_eval_gate.support.console import Console, relayed_output


class _Terminal:
    """A writer of ours (like the progress line) that writes to file descriptor 1 itself."""

    def __init__(self, descriptor: int) -> None:
        self.stream = open(descriptor, "w", encoding="utf-8", closefd=False)  # noqa: SIM115


def test_writes_to_file_descriptors_1_and_2_are_relayed_masked_and_neutralised() -> None:
    log = io.StringIO()
    console = Console(in_actions=True, stream=log, secrets=["hunter2-secret"])
    with relayed_output(console):
        print("::error::from print")
        os.write(1, b"::stop-commands::from fd 1 hunter2-secret\n")
        os.write(2, b"no newline at the end")
    lines = log.getvalue().splitlines()
    assert lines[1:] == [
        ":\u200b:error::from print",
        ":\u200b:stop-commands::from fd 1 ***",
        "no newline at the end",
    ]


def test_our_own_writers_on_file_descriptors_keep_writing_to_the_terminal() -> None:
    with tempfile.TemporaryFile() as terminal:
        saved = os.dup(1)
        sys.stdout.flush()
        os.dup2(terminal.fileno(), 1)  # the terminal, for this test
        try:
            progress = _Terminal(1)
            console = Console(in_actions=False, stream=_Terminal(1).stream)
            with relayed_output(console, [progress]):
                progress.stream.write("\rprogress line")
                progress.stream.flush()
                os.write(1, b"relayed\n")
            console.line("after")
            progress.stream.close()
            console.stream.close()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        terminal.seek(0)
        assert terminal.read().decode() == "\rprogress linerelayed\nafter\n"
