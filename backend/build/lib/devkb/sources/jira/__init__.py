"""Jira loader (atlassian-python-api, REST API v2)."""

from devkb.sources.jira.loader import JiraLoader, JiraLoaderConfig

__all__ = ["JiraLoader", "JiraLoaderConfig"]
