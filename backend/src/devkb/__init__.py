"""devkb: a knowledge base for software teams (Jira, Confluence, GitHub → graph → answers)."""

__version__ = "0.1.0"
