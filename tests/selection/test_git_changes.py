"""The files changed since the baseline's commit (``selection/git_changes.py``), from real git repositories: what a
checkout holds against the base commit, and why the changes are unknown when git cannot say (a commit it does not
have, a shallow clone, no repository); a shallow clone fetches the base commit when allowed, as in the action."""

from __future__ import annotations

from pathlib import Path

import pytest

from adk_eval_gate.selection.git_changes import Changed, Unknown, changed_since, head_commit, tracked_files
from tests.git_repos import git

pytestmark = pytest.mark.slow  # git as a process


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    """A repository with one commit (the base) and the base commit's id."""
    root = tmp_path / "repo"
    for name in ("keep.py", "edit.py", "gone.py", "old name.py", "agents/a/agent.py"):
        write(root / name, f"# {name}\n")
    write(root / ".gitignore", "ignored/\n")
    git(root.parent, "init", "--quiet", "--initial-branch=main", str(root))
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "--message", "base")
    return root, git(root, "rev-parse", "HEAD")


def test_committed_uncommitted_deleted_renamed_and_untracked_files_are_changed_and_ignored_ones_not(
    repo: tuple[Path, str],
) -> None:
    root, base = repo
    write(root / "edit.py", "# edited\n")
    (root / "gone.py").unlink()
    git(root, "mv", "old name.py", "new name.py")
    write(root / "agents" / "a" / "prompt.txt", "new, committed\n")
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "--message", "head")
    write(root / "agents" / "a" / "agent.py", "# not committed yet\n")
    write(root / "notes.txt", "untracked\n")
    write(root / "ignored" / "cache.bin", "ignored\n")
    assert changed_since(base, root=root, fetch=False) == Changed(
        frozenset(
            {
                "edit.py",
                "gone.py",
                "old name.py",
                "new name.py",
                "agents/a/prompt.txt",
                "agents/a/agent.py",
                "notes.txt",
            }
        )
    )
    assert changed_since(base.upper(), root=root / "agents", fetch=False) == Changed(
        frozenset({"a/prompt.txt", "a/agent.py"})  # relative to the root the gate runs in
    )
    assert head_commit(root) == git(root, "rev-parse", "HEAD")
    assert "keep.py" in tracked_files(root) and "notes.txt" not in tracked_files(root)


def test_a_commit_git_does_not_have_or_that_is_not_an_id_is_unknown_with_the_reason(repo: tuple[Path, str]) -> None:
    root, _ = repo
    assert changed_since("f" * 40, root=root, fetch=False) == Unknown(
        "the baseline's commit ffffffffffff is not in this clone's history"
    )
    assert changed_since("main; rm -rf /", root=root, fetch=False) == Unknown(
        "the baseline's commit 'main; rm -rf /' is not a commit id"
    )


def test_outside_a_repository_the_changes_are_unknown(tmp_path: Path) -> None:
    found = changed_since("a" * 40, root=tmp_path, fetch=False)
    assert isinstance(found, Unknown) and found.reason.startswith("git cannot read the repository here (")
    assert head_commit(tmp_path) is None and tracked_files(tmp_path) == []


def test_a_shallow_clone_says_to_fetch_the_history_or_fetches_the_base_commit_when_allowed(
    repo: tuple[Path, str], tmp_path: Path
) -> None:
    root, base = repo
    write(root / "edit.py", "# edited\n")
    git(root, "commit", "--quiet", "--all", "--message", "head")
    git(root, "config", "uploadpack.allowAnySHA1InWant", "true")  # as GitHub allows fetching a commit by id
    git(tmp_path, "clone", "--quiet", "--depth=1", f"file://{root}", "shallow")
    shallow = tmp_path / "shallow"
    assert changed_since(base, root=shallow, fetch=False) == Unknown(
        f"the baseline's commit {base[:12]} is not in this clone's history "
        "(a shallow clone: give actions/checkout fetch-depth: 0)"
    )
    assert changed_since(base, root=shallow, fetch=True) == Changed(frozenset({"edit.py"}))
