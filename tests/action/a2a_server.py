"""The A2A server of the container test (``.ci/container-test.sh``): ADK's ``to_a2a`` over the weather example's
scripted agent on 127.0.0.1, which answers only requests that carry ``Authorization: Bearer <A2A_TOKEN>`` (the
``agent-headers`` input of the a2a scenario) and logs, one JSON line per request, its path and whether it did::

    python -m tests.action.a2a_server --port-file FILE --requests-log FILE

It runs until it is stopped; the port is written once the socket listens.
"""

from __future__ import annotations

import argparse
import json
import socket
from pathlib import Path
from typing import Any

from tests.action.container_check import A2A_TOKEN

Scope = dict[str, Any]


class RequireToken:
    """ASGI middleware: an HTTP request without the bearer token is answered 401 and never reaches the agent."""

    def __init__(self, app: Any, *, token: str, log: Path) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()
        self.log = log

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":  # the lifespan: ADK's to_a2a adds its routes at startup
            await self.app(scope, receive, send)
            return
        authorized = dict(scope["headers"]).get(b"authorization") == self.expected
        with self.log.open("a", encoding="utf-8") as log:
            log.write(json.dumps({"method": scope["method"], "path": scope["path"], "authorized": authorized}) + "\n")
        if authorized:
            await self.app(scope, receive, send)
            return
        await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"no or wrong bearer token"})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.action.a2a_server", description=__doc__.splitlines()[0])
    parser.add_argument("--port-file", type=Path, required=True)
    parser.add_argument("--requests-log", type=Path, required=True)
    args = parser.parse_args(argv)

    import warnings

    import uvicorn

    warnings.filterwarnings("ignore", message=r"\[EXPERIMENTAL\]")  # ADK's, on every request its A2A server serves

    from examples.weather_agent.agent import root_agent
    from tests.runners.a2a_servers import adk_app

    app = RequireToken(adk_app(root_agent), token=A2A_TOKEN, log=args.requests_log)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    args.port_file.write_text(str(sock.getsockname()[1]), encoding="utf-8")
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")).run(sockets=[sock])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
