"""The sources file (``sources.yaml``): which Jira, Confluence, GitHub, file and web sources to read and when.

    sources:
      - name: jira                 # unique; used in the API (/sources/jira) and CLI (devkb sync jira)
        type: jira                 # jira | confluence | github | files | web
        url: https://jira.example.com
        user: bot@example.com
        token_env: DEVKB_JIRA_TOKEN   # secrets come from the environment only
        projects: [PAY, WEB]
        schedule: 30m              # every 30 minutes; also "2h", "1d" or a 5-field cron expression
      - name: wiki
        type: confluence
        url: https://wiki.example.com
        spaces: [PAY]
      - name: code
        type: github
        repos: [acme/payments-service]
        include: ["**/*.md", "**/*.py"]
        people:                    # permission sync: account id / user name / login → e-mail
          octocat: octo@example.com
      - name: design-docs
        type: files                # a directory: Markdown, HTML, text, code, PDF, DOCX
        path: /mnt/shared/design
        include: ["**/*.pdf", "**/*.docx", "**/*.md"]
        readers: [everyone]        # who may read its documents (default: every signed-in member)
      - name: python-docs
        type: web                  # a documentation site, crawled
        start_urls: [https://docs.python.org/3/library/]
        sitemaps: []               # and/or sitemap.xml URLs
        include: ["/3/library/**"]
        max_pages: 500

Unknown keys are errors, so a typo never silently disables a setting.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from devkb.errors import ConfigurationError

_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
_SCHEDULE = re.compile(r"^(\d+)([smhd])$")
# type files: the formats the converters read (sources/files/convert.py)
FILES_INCLUDE = [
    "**/*.md",
    "**/*.markdown",
    "**/*.rst",
    "**/*.txt",
    "**/*.html",
    "**/*.htm",
    "**/*.pdf",
    "**/*.docx",
    "**/*.py",
    "**/*.js",
    "**/*.ts",
    "**/*.java",
    "**/*.go",
    "**/*.rs",
    "**/*.c",
    "**/*.h",
    "**/*.cpp",
    "**/*.rb",
    "**/*.kt",
    "**/*.cs",
    "**/*.json",
    "**/*.yaml",
    "**/*.yml",
    "**/*.toml",
]


class SourceConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    type: Literal["jira", "confluence", "github", "files", "web", "uploads"]
    url: str | None = None
    browse_url: str | None = Field(None, description="Base URL used in citations, when it differs from url.")
    user: str | None = None
    token_env: str | None = None
    schedule: str | None = "30m"
    enabled: bool = True
    deployment: Literal["auto", "cloud", "datacenter"] = Field(
        "auto", description="Atlassian sources: Cloud or Data Center/Server; auto asks the server."
    )
    # jira
    projects: list[str] = Field(default_factory=list)
    jql: str | None = None
    # confluence
    spaces: list[str] = Field(default_factory=list)
    url_aliases: dict[str, str] = Field(default_factory=dict, description="Extra site path → page title.")
    # github
    repos: list[str] = Field(default_factory=list)
    include: list[str] = Field(
        default_factory=lambda: [
            "**/*.md",
            "**/*.rst",
            "**/*.txt",
            "**/*.py",
            "**/*.js",
            "**/*.ts",
            "**/*.java",
            "**/*.go",
            "**/*.json",
            "**/*.yaml",
            "**/*.yml",
            "**/*.toml",
        ]
    )
    exclude: list[str] = Field(default_factory=list)
    max_file_bytes: int | None = Field(
        None, description="Largest file indexed (default: 200 kB for GitHub, 25 MB for files and web pages)."
    )
    include_issues: bool = True
    branches: list[str] = Field(
        default_factory=list, description="GitHub: branches beyond the default whose commits are indexed too."
    )
    doc_sites: list[dict[str, str]] = Field(
        default_factory=list,
        description="Documentation sites built from a repo: [{prefix, repo, path}] with {page} in path.",
    )
    page_size: int = Field(100, ge=1, le=1000)
    people: dict[str, str] = Field(
        default_factory=dict,
        description="Permission sync: source account id, user name or login → e-mail (overrides the source's).",
    )

    # files
    path: str | None = Field(None, description="files: the directory to read (local or mounted).")
    readers: list[str] = Field(
        default_factory=lambda: ["everyone"],
        description="files/web: who may read the documents: 'everyone' (every member) or e-mails.",
    )
    # web
    start_urls: list[str] = Field(default_factory=list)
    sitemaps: list[str] = Field(default_factory=list, description="web: sitemap.xml URLs to start from.")
    hosts: list[str] = Field(default_factory=list, description="web: hosts beyond the start URLs' to follow.")
    max_pages: int = Field(1000, ge=1, le=1_000_000)
    max_depth: int = Field(20, ge=0, le=1000)
    concurrency: int = Field(4, ge=1, le=64)
    requests_per_second: float = Field(10.0, gt=0, le=1000)
    user_agent: str = "devkb-crawler/0.1 (+https://github.com/devkb)"
    respect_robots: bool = True
    page_seconds: float = Field(
        120.0, gt=0, le=3600, description="web: longest one page may take to download (then it is skipped)."
    )

    @model_validator(mode="after")
    def _per_type(self) -> SourceConfig:
        if self.type in ("files", "web") and "include" not in self.model_fields_set:
            self.include = FILES_INCLUDE if self.type == "files" else []
        if self.type in ("files", "uploads") and not self.path:
            raise ValueError(f"source {self.name}: path is required for type files")
        if self.type == "web" and not (self.start_urls or self.sitemaps):
            raise ValueError(f"source {self.name}: start_urls or sitemaps are required for type web")
        return self

    def file_size_limit(self) -> int:
        if self.max_file_bytes is not None:
            return self.max_file_bytes
        return 200_000 if self.type == "github" else 25_000_000

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME.match(v):
            raise ValueError("name must be lower-case letters, digits, '-' or '_' (max 63)")
        return v

    @field_validator("schedule")
    @classmethod
    def _schedule(cls, v: str | None) -> str | None:
        if v is None or v in ("", "off", "manual"):
            return None
        if _SCHEDULE.match(v) or len(v.split()) == 5:
            return v
        raise ValueError("schedule must look like 30m, 2h, 1d, a 5-field cron expression, or 'manual'")

    def token(self) -> SecretStr | None:
        if not self.token_env:
            return None
        value = os.environ.get(self.token_env)
        if value is None:
            raise ConfigurationError(f"source {self.name}: environment variable {self.token_env} is not set")
        return SecretStr(value)


class SourcesFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sources: list[SourceConfig]

    @field_validator("sources")
    @classmethod
    def _unique(cls, v: list[SourceConfig]) -> list[SourceConfig]:
        names = [s.name for s in v]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"duplicate source names: {', '.join(sorted(dup))}")
        return v


def load_sources_file(path: Path) -> list[SourceConfig]:
    try:
        raw: Any = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        return SourcesFile.model_validate(raw).sources
    except (OSError, yaml.YAMLError) as e:
        raise ConfigurationError(f"cannot read sources file {path}: {e}") from e
    except ValidationError as e:
        raise ConfigurationError(f"invalid sources file {path}:\n{e}") from e


def parse_interval_seconds(schedule: str) -> int | None:
    """``30m`` → 1800; a cron expression → ``None``."""
    m = _SCHEDULE.match(schedule)
    if not m:
        return None
    return int(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]
