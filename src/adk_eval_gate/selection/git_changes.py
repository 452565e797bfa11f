"""The files changed between the baseline's commit and this checkout, from git (``--only-affected``).

The diff is of the working tree against the base commit, with the files git does not track yet (and does not
ignore): what a pull request's checkout holds, and a developer's uncommitted edits. A submodule is named as one path
(its commit changed, or its checkout holds changes): every path under it counts as changed. A base commit this clone
does not have is fetched (by its id, one commit deep: a diff needs the two trees, not the history between them) when
``fetch`` allows it, as inside the action where actions/checkout left the credentials; otherwise, and whenever git
cannot answer, the answer is why the changes are unknown, in one line.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

GIT_TIMEOUT = 60.0  # seconds for a local git command
FETCH_TIMEOUT = 180.0  # seconds for fetching the base commit
_COMMIT = re.compile(r"[0-9a-f]{7,64}")
# A submodule is one path, named when its commit or its checkout changed, whatever .gitmodules says to ignore.
_DIFF = ("--name-only", "-z", "--no-renames", "--no-ext-diff", "--relative", "--ignore-submodules=none")


@dataclass(frozen=True)
class Changed:
    files: frozenset[str]  # repository-relative POSIX paths: changed, added, deleted, untracked; a submodule's path


@dataclass(frozen=True)
class Unknown:
    reason: str  # why the changes cannot be known, for a line of the log and the reports


class GitFailed(Exception):
    """A git command failed; the message is git's last line."""


def _git(root: Path, *args: str, timeout: float = GIT_TIMEOUT) -> str:
    environment = {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",  # never wait for a password
        "GIT_OPTIONAL_LOCKS": "0",
        "LC_ALL": "C",
    }
    # safe.directory: in the action's container the checkout belongs to another user; its agents run here anyway
    command = ["git", "-c", f"safe.directory={root}", "-c", "core.quotepath=off", *args]
    try:
        done = subprocess.run(
            command,
            cwd=root,
            env=environment,
            capture_output=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise GitFailed("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise GitFailed(f"git {args[0]} did not finish within {timeout:g} s") from None
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitFailed(lines[-1] if lines else f"git {args[0]} exited with {done.returncode}")
    return done.stdout.decode("utf-8", "backslashreplace")  # as runners/workers/observe.py spells a file name


def head_commit(root: Path) -> str | None:
    """The commit checked out at ``root`` (None outside a git repository)."""
    try:
        sha = _git(root, "rev-parse", "--verify", "--quiet", "HEAD").strip()
    except GitFailed:
        return None
    return sha if _COMMIT.fullmatch(sha) else None


def tracked_files(root: Path, *, submodules: bool = False) -> list[str]:
    """The files git tracks under ``root``, with those of its submodules' checkouts when ``submodules`` (empty when
    git cannot say)."""
    try:
        listed = _git(root, "ls-files", "-z", *(["--recurse-submodules"] if submodules else []))
    except GitFailed:
        return []
    return [path for path in listed.split("\0") if path]


def _has_commit(root: Path, sha: str) -> bool:
    try:
        _git(root, "cat-file", "-e", f"{sha}^{{commit}}")
    except GitFailed:
        return False
    return True


def _shallow(root: Path) -> bool:
    try:
        return _git(root, "rev-parse", "--is-shallow-repository").strip() == "true"
    except GitFailed:
        return False


def _fetched(root: Path, sha: str) -> bool:
    try:
        _git(root, "fetch", "--quiet", "--no-tags", "--depth=1", "origin", sha, timeout=FETCH_TIMEOUT)
    except GitFailed:
        return False
    return _has_commit(root, sha)


def changed_since(base_sha: str, *, root: Path, fetch: bool) -> Changed | Unknown:
    """The files that differ between ``base_sha`` and the working tree at ``root``, or why that is unknown."""
    sha = base_sha.strip().lower()
    if not _COMMIT.fullmatch(sha):
        return Unknown(f"the baseline's commit {base_sha[:64]!r} is not a commit id")
    try:
        _git(root, "rev-parse", "--is-inside-work-tree")
    except GitFailed as error:
        return Unknown(f"git cannot read the repository here ({error})")
    if not _has_commit(root, sha) and not (fetch and _fetched(root, sha)):
        where = f"the baseline's commit {sha[:12]} is not in this clone's history"
        if _shallow(root):
            return Unknown(f"{where} (a shallow clone: give actions/checkout fetch-depth: 0)")
        return Unknown(where)
    try:
        changed = _git(root, "diff", *_DIFF, sha, "--")
        untracked = _git(root, "ls-files", "-z", "--others", "--exclude-standard")
    except GitFailed as error:
        return Unknown(f"git diff against {sha[:12]} failed ({error})")
    # a folder git lists whole (another repository inside, not a submodule) is a path like a submodule's
    return Changed(frozenset(path.rstrip("/") for path in (changed + "\0" + untracked).split("\0") if path))
