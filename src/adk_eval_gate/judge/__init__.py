"""The LLM judge: google-genai client, shared rate limit, retries, result cache, prompts and answer parsing."""
