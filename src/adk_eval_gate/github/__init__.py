"""GitHub: the runner's context, the REST client, the sticky comment, outputs and annotations."""
