"""Real git repositories for the tests of ``--only-affected`` (git is installed on every machine that runs them)."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(repo: Path, *args: str) -> str:
    """Runs git in ``repo`` as a test author; its output, stripped. Raises when git fails."""
    done = subprocess.run(
        ["git", "-c", "user.name=Gate Tests", "-c", "user.email=tests@example.com", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout.strip()


def repository_with_one_commit(root: Path) -> str:
    """``root`` as a repository whose one commit is empty; the commit's id."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "commit", "--quiet", "--allow-empty", "--message", "base")
    return git(root, "rev-parse", "HEAD")
