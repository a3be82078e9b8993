"""Jira loader (atlassian-python-api, REST API v2)."""

from devkb.sources.jira.client import JiraLoaderConfig
from devkb.sources.jira.loader import JiraLoader

__all__ = ["JiraLoader", "JiraLoaderConfig"]
