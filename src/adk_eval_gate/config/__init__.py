"""The options, the one typed settings object, and the GitHub Actions context."""
