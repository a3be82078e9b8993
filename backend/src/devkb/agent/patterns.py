"""The lexical shapes that stay regular expressions: identifiers, numbers, dates and markup whose
form is a matter of characters, not of words (an issue key, a commit SHA, a pull request number,
a path, a repository, a quoted title, a citation marker, a document id). One table of named
patterns, compiled here and nowhere else; everything a question says in words is read with the
word patterns of :mod:`devkb.agent.words` instead.

Each row: a name, the pattern, its flags. The readers:
``identifiers`` (what a question names), ``question`` (a version after "since"), ``ask_service``
and ``confidence`` (citation markers, sentence ends), ``tools`` (arguments a model passes),
``retrieval`` (a Jira title's key, Markdown headings).
"""

from __future__ import annotations

import re

_REPO = r"([A-Za-z0-9][\w.-]{0,38}/[A-Za-z0-9][\w.-]{0,99})"

ROWS: tuple[tuple[str, str, re.RegexFlag], ...] = (
    # -- what a question names (identifiers.read_lookups) --
    (
        "issue_key",
        r"(?<![A-Za-z0-9_/\-])([A-Za-z][A-Za-z0-9]{1,9})-([1-9][0-9]{0,6})(?![A-Za-z0-9_])",
        re.NOFLAG,
    ),
    ("sha", r"(?<![0-9A-Za-z])([0-9a-f]{40})(?![0-9A-Za-z])", re.NOFLAG),
    ("sha_prefix", r"[0-9a-fA-F]{7,40}", re.NOFLAG),  # a commit named by the first 7+ of its SHA
    (
        "pull",
        r"\b(?:pull\s+requests?|PRs?|pulls?|merge\s+requests?)\s*(?:number\s*)?#?\s*(\d{1,7})\b|(?<![\w&])#(\d{1,7})\b",
        re.IGNORECASE,
    ),
    ("path", r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,6})(?![\w/])", re.NOFLAG),
    ("file_name", r"(?<![\w/.-])([\w-]{2,}\.(?:md|markdown|json|txt|html|ya?ml|py))\b", re.NOFLAG),
    (
        "repository",
        rf"(?:\brepo(?:sitory)?\s+|github\.com/){_REPO}(?![\w/])|(?<![\w/.-]){_REPO}\s+repo(?:sitory)?\b",
        re.IGNORECASE,
    ),
    ("quoted", r"[\"“”]([^\"“”]{3,120})[\"“”]", re.NOFLAG),
    ("space", r"\b(?:space\s+([A-Z][A-Z0-9]{1,15})\b|([A-Z][A-Z0-9]{1,15})\s+space\b)", re.NOFLAG),
    ("project", r"\b(?:project\s+([A-Z][A-Z0-9]{1,9})\b|([A-Z][A-Z0-9]{1,9})\s+project\b)", re.NOFLAG),
    # "since version 1.2", "since v2.0.1"
    ("since_version", r"\bsince\s+(?:version\s+|v)?(\d+\.\d+(?:\.\d+)?)\b", re.IGNORECASE),
    # -- answers --
    ("citation", r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]", re.NOFLAG),  # [1], [2, 3]
    ("sentence_end", r"(?<=[.!?\]])\s+", re.NOFLAG),
    # -- what a model passes to a tool (checked before it reaches the store) --
    ("document_id", r"^[a-z]+:[^\s]{1,500}$", re.NOFLAG),
    ("kind_name", r"^[A-Za-z][A-Za-z0-9_\-]{0,63}$", re.NOFLAG),
    ("iso_instant", r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$", re.NOFLAG),
    # -- stored text --
    ("key_prefix", r"^[A-Z][A-Z0-9]+-\d+:\s*", re.NOFLAG),  # "PAY-12: " before a Jira title
    ("h2_heading", r"^## +(.+?)\s*$", re.MULTILINE),
    # Markdown emphasis a converted manual keeps ("*Append* the resource use …"), not a list
    # bullet ("* item"), an escaped star ("\\*") or a product ("a * b")
    ("emphasis", r"(?<![\w*\\])\*(?=[^\s*])([^*\n]*?[^\s*\\])\*(?![\w*])", re.NOFLAG),
)

SHAPES: dict[str, re.Pattern[str]] = {name: re.compile(pattern, flags) for name, pattern, flags in ROWS}

ISSUE_KEY = SHAPES["issue_key"]
SHA = SHAPES["sha"]
SHA_PREFIX = SHAPES["sha_prefix"]
PULL = SHAPES["pull"]
PATH = SHAPES["path"]
FILE_NAME = SHAPES["file_name"]
REPOSITORY = SHAPES["repository"]
QUOTED = SHAPES["quoted"]
SPACE = SHAPES["space"]
PROJECT = SHAPES["project"]
SINCE_VERSION = SHAPES["since_version"]
CITATION = SHAPES["citation"]
SENTENCE_END = SHAPES["sentence_end"]
DOCUMENT_ID = SHAPES["document_id"]
KIND_NAME = SHAPES["kind_name"]
ISO_INSTANT = SHAPES["iso_instant"]
KEY_PREFIX = SHAPES["key_prefix"]
H2_HEADING = SHAPES["h2_heading"]
EMPHASIS = SHAPES["emphasis"]
