"""The data the stages hand each other: ADK's eval file and config models, and results.json's models."""
