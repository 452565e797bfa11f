"""A real ``adk api_server`` on 127.0.0.1, started for the tests and stopped after them."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ApiServer:
    def __init__(self, agents_dir: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = agents_dir.parent / f"api_server_{self.port}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "GEMINI_"))}
        self.process = subprocess.Popen(
            [
                sys.executable, "-m", "google.adk.cli", "api_server",
                "--host", "127.0.0.1", "--port", str(self.port),
                "--session_service_uri", "memory://", str(agents_dir),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            text=True,
        )  # fmt: skip
        self.listening = False
        self._said = threading.Event()  # uvicorn said it listens, or the output ended
        threading.Thread(target=self._keep_output, daemon=True).start()

    def _keep_output(self) -> None:
        """Copies the server's output to ``log``; ``_said`` once uvicorn says it listens (its socket is bound)."""
        assert self.process.stdout is not None
        with self.log.open("w", encoding="utf-8") as log:
            for line in self.process.stdout:
                log.write(line)
                log.flush()
                if f"Uvicorn running on {self.url} " in line:
                    self.listening = True
                    self._said.set()
        self._said.set()

    def wait(self, timeout: float = 60) -> None:
        """Returns once the server listens; raises with its output if it ended first or said nothing within
        ``timeout`` seconds (a guard far above its start)."""
        if not self._said.wait(timeout):
            raise RuntimeError(f"adk api_server did not start: {self.log.read_text()[-2000:]}")
        if not self.listening:
            raise RuntimeError(f"adk api_server exited: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
