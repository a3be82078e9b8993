"""Answering questions: retrieval tools, the agent that chooses among them, and answer composition."""
