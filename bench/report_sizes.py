"""Sizes of the PR comment and the job summary against GitHub's limits, for suites of growing size.

Run: python bench/report_sizes.py   Prints, for 10 to 20,000 failing cases (two metrics each, 2,600-character
answers, all regressed against a passing baseline), the comment's characters (limit 65,536) and the summary's
bytes (limit 1 MiB), the failing cases each still shows in full, and the time to render both. Exits 1 when a
rendering goes over its limit.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from adk_eval_gate.report import comment, summary  # noqa: E402
from tests.report.scenarios import huge_failing  # noqa: E402

SIZES = (10, 100, 1_000, 5_000, 20_000)


def main() -> int:
    print(f"{'cases':>7} {'comment chars':>14} {'shown':>6} {'summary bytes':>14} {'shown':>6} {'render s':>9}")
    over = False
    for count in SIZES:
        doc = huge_failing(count)
        started = time.perf_counter()
        body = comment.render(doc)
        text = summary.render(doc)
        elapsed = time.perf_counter() - started
        size = len(text.encode("utf-8"))
        over |= len(body) > comment.COMMENT_LIMIT or size > summary.SUMMARY_LIMIT
        print(
            f"{count:>7} {len(body):>14,} {body.count('<details>'):>6} {size:>14,} "
            f"{text.count('<details>'):>6} {elapsed:>9.2f}"
        )
    print(f"limits: comment {comment.COMMENT_LIMIT:,} characters, summary {summary.SUMMARY_LIMIT:,} bytes")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
