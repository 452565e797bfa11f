"""The results of an earlier attempt of this workflow run, for a job re-run with ``--sequential``
(``GITHUB_RUN_ATTEMPT`` > 1): the results artifact listed under this run (``GITHUB_RUN_ID``), downloaded and read
as untrusted as the baseline's (``github/artifact.py``: size-capped, no zip bombs, only ``results.json``; then
sanitized and validated as results.json).

GitHub's artifact listing does not say which attempt made an artifact: an artifact of this run made before this
attempt uploaded anything is an earlier attempt's, and the results record their attempt (``run.run_attempt``), which
``compare/earlier_attempt.py`` checks is before this one. Any problem is one line, and every case starts afresh.
"""

from __future__ import annotations

from adk_eval_gate.compare.earlier_attempt import NoEarlierAttempt
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.github.artifact import MAX_ZIP_BYTES, ArtifactError, read_results
from adk_eval_gate.github.baseline import ACTIONS_READ, UNEXPECTED_SHAPE, newest_artifact, parse_results
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.support.errors import GateError


def find(settings: Settings, client: GitHubClient | None) -> ResultsDocument | NoEarlierAttempt:
    """The earlier attempt's results, when ``--sequential`` is given and this is a re-run; never raises."""
    attempt = settings.github.attempt
    if not settings.sequential or attempt is None or attempt < 2:
        return NoEarlierAttempt()
    context = settings.github
    fresh = f"attempt {attempt}: every case starts afresh"
    run_id = context.run_id or ""
    if client is None or not context.repository or not (run_id.isascii() and run_id.isdigit()):
        return NoEarlierAttempt(f"{fresh}, without a GitHub token and run to find the earlier attempt's evidence")
    try:
        return _download(client, repository=context.repository, run_id=run_id, name=settings.artifact_name)
    except _Missing as missing:
        return NoEarlierAttempt(f"{fresh}: {missing}")
    except GateError as error:
        return NoEarlierAttempt(f"{fresh}: the earlier attempt's results cannot be used: {error.one_line()}")
    except UNEXPECTED_SHAPE as error:
        return NoEarlierAttempt(f"{fresh}: unexpected answer from GitHub ({type(error).__name__})")


class _Missing(Exception):
    """This run has no such artifact: the earlier attempt uploaded none (or it expired)."""


def _download(client: GitHubClient, *, repository: str, run_id: str, name: str) -> ResultsDocument:
    artifact = newest_artifact(client, repository=repository, run_id=run_id, name=name)
    if artifact is None:
        raise _Missing(f"this run has no artifact named {name!r} from an earlier attempt")
    shown = f"artifact {name!r} of this run's earlier attempt"
    if artifact.size_in_bytes > MAX_ZIP_BYTES:
        raise ArtifactError(f"{shown} is {artifact.size_in_bytes:,} bytes, more than the {MAX_ZIP_BYTES:,} allowed")
    location = client.redirect_location(
        f"/repos/{repository}/actions/artifacts/{artifact.id}/zip", permission=ACTIONS_READ
    )
    data = client.download(location, max_bytes=MAX_ZIP_BYTES)
    return parse_results(read_results(data), shown=f"results.json in {shown}")
