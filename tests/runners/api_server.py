"""A real ``adk api_server`` on 127.0.0.1, started for the tests and stopped after them."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


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
            stdout=self.log.open("w"),
            stderr=subprocess.STDOUT,
            env=env,
        )  # fmt: skip

    def wait(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"adk api_server exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/list-apps", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"adk api_server did not start: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
