"""Pure renderers: results.json, JUnit XML, Markdown (summary and PR comment) and console lines."""
