"""Cross-cutting pieces every stage uses: the console, errors, untrusted JSON, retries, cache files, masking, words,
numbers."""
