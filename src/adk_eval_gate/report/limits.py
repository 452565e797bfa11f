"""GitHub's limits that shape what we write, in one place."""

COMMENT_CHARS = 65_536  # an issue or pull-request comment body, in characters
STEP_SUMMARY_BYTES = 1_048_576  # $GITHUB_STEP_SUMMARY, per step, in bytes
SECONDARY_RATE_LIMIT_WAIT = 60.0  # seconds, when a secondary rate limit does not say how long (GitHub's advice)
