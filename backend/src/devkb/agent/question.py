"""What a question asks, read by rules into a structure the planner and the extractive answer use:

- the **anchor**: identifiers (issue keys in any case when the project is known, SHAs, pull
  requests, paths, quoted titles, …; see :mod:`devkb.agent.identifiers`);
- the **wanted** document type: pull request, commit, page, file, issue or person;
- the **relation** and its **direction** seen from the anchor: ``out`` = the anchor does it
  ("what does X depend on", "what is blocking X"), ``in`` = others do it to the anchor ("what depends
  on X", "what is X blocking"), ``both`` for symmetric ones ("related", "linked");
- **time** (``last month``, ``in April 2019``, ``since 2019-03``), **fields** asked about (status,
  assignee, reporter, …) and the **question type** (why / who / when / what changed / about);
- whether it is a **follow-up**: only when it refers back (a pronoun, "and …", "what about …", an
  ellipsis) — never because it is short;
- its **reference** and **own words**: the word a question without an identifier uses for what it
  is about ("it", "its", "them", "this one", "that issue"), and the question with that word and the
  words that say what is asked about it (a field, a relation, the question type, the wanted
  document type, an opening "and …") blanked out. "and who worked on it?" has the reference "it"
  and no words of its own: without an earlier turn it names nothing (``kinds/unresolved.py``);
  "how do I configure it for production?" keeps "configure" and "production".
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from devkb.agent.identifiers import QuestionLookups, read_lookups
from devkb.agent.patterns import SINCE_VERSION
from devkb.agent.words import has_phrase as words_has_phrase
from devkb.agent.words import tokens_of as tokens_of  # re-exported: frame/extract.py reads it here
from devkb.agent.words import words_of as words_of  # re-exported: kinds and frame read it here

Direction = str  # "out" | "in" | "both"


@dataclass(frozen=True)
class Relation:
    name: str  # depends | duplicates | subtask | supersedes | fixed_by | mentions | worked_on | related
    direction: Direction
    # issue-link phrases that express it, seen from the subject of the link ("A depends on B")
    phrases: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParsedQuestion:
    text: str
    lookups: QuestionLookups
    wanted: str | None  # pull | commit | page | file | issue | person
    relation: Relation | None
    time_from: str | None
    time_to: str | None
    fields: tuple[str, ...]  # status | resolution | assignee | reporter | priority | fix_version | …
    qtype: str  # why | who | when | changed | about | list | fact
    follow_up: bool
    words: tuple[str, ...] = ()  # the question's words, lower-cased, in order (kinds match phrases on them)
    # the first word referring to something said before ("it", "them", "this one"); None with an identifier
    reference: str | None = None
    # the question with its reference and what it asks about it blanked out (its own topic's words)
    own_words: str = ""

    @property
    def anchored(self) -> bool:
        return self.lookups.anchored

    @property
    def issue_keys(self) -> tuple[str, ...]:
        return tuple(v for lk in self.lookups.lookups for v in lk.filters.get("key", ()))

    @property
    def projects(self) -> tuple[str, ...]:
        return tuple(p for lk in self.lookups.lookups for p in lk.filters.get("project", ()))

    def has(self, *phrases: tuple[str, ...]) -> bool:
        return has_phrase(self.words, phrases)


def has_phrase(words: tuple[str, ...], phrases: Iterable[tuple[str, ...]]) -> bool:
    """Whether one of ``phrases`` (each a sequence of words) occurs in ``words``."""
    return words_has_phrase(words, phrases)


def _table(*rows: tuple[str, str]) -> tuple[tuple[re.Pattern[str], str], ...]:
    """Patterns as data: (pattern, what it means) rows, compiled here, case-insensitive."""
    return tuple((re.compile(pattern, re.IGNORECASE), meaning) for pattern, meaning in rows)


_WANTED = _table(
    (r"\b(?:pull[\s-]*requests?|PRs?|merge requests?)\b", "pull"),
    (r"\b(?:commits?|committed|changesets?|git log|code\s+changes?)\b", "commit"),
    (r"\b(?:pages?|wiki|handbook|confluence)\b", "page"),
    (r"\b(?:files?|docs? file|markdown)\b", "file"),
    (r"\b(?:who|whom|whose|person|people)\b", "person"),
    (r"\b(?:issues?|tickets?|bugs?|tasks?|jiras?)\b", "issue"),
)

# relation patterns → (name, direction seen from the anchor). Order matters: first match wins.
_DEPEND_OUT = ("depends on", "is blocked by")
_DEPEND_IN = ("is depended on by", "blocks")
# templates: {A} is replaced by the anchor's names before compiling (see _relation)
_RELATIONS: tuple[tuple[str, str, Direction], ...] = (
    # "what does X depend on", "X depends on which", "what is X waiting on", "what's blocking X",
    # "what needs to land before X", "X is blocked by"
    (
        r"\b(?:does|do|did)\s+{A}\s+(?:depend|rely)\b|{A}\s+(?:depends|relies)\s+on\b|"
        r"\bdependencies\s+of\s+{A}|{A}(?:'s)?\s+dependencies|{A}\s+(?:is\s+)?waiting\s+(?:on|for)\b|"
        r"\bblock(?:ing|s)?\s+{A}|{A}\s+(?:is\s+)?blocked\s+by\b|\bbefore\s+{A}|"
        r"\bwhat\s+(?:is|was)\s+{A}\s+waiting",
        "depends",
        "out",
    ),
    # "what depends on X", "what is X blocking", "what is waiting on X", "X blocks what"
    (
        r"\b(?:depends?|depending|depended|relies|rely)\s+(?:up)?on\s+{A}|{A}\s+(?:is\s+)?blocking\b|"
        r"{A}\s+blocks\b|\bwaiting\s+(?:on|for)\s+{A}|\bblocked\s+by\s+{A}|\bdependents\s+of\s+{A}",
        "depends",
        "in",
    ),
    (r"\bduplicat\w*", "duplicates", "both"),
    (r"\bsub-?tasks?\b|\bchild(?:ren)?\b|\bparent\b", "subtask", "both"),
    (r"\bsupersed\w*", "supersedes", "both"),
    (
        r"\bworked\s+on|\bwork(?:ing)?\s+(?:on|for)\b|\bimplement\w*|\btouch\w*|"
        # "which PRs fixed the double payment bug?": the changes that did it, not its status
        r"\b(?:which|what)\s+(?:commits?|pull\s+requests?|PRs?|changes?)\s+(?:fixed|resolved|closed|addressed)\b",
        "worked_on",
        "both",
    ),
    (r"\bmention\w*|\breferenc\w*|\bcit(?:es|ed|ing)\b", "mentions", "both"),
    (
        r"\brelat(?:ed|es|e|ion|ionship)s?\b|\blink(?:ed|s)?\b|\bconnected\b|\bassociated\b|\bwhat\s+else\b|"
        r"\bdepend\w*|\bblock\w*",
        "related",
        "both",
    ),
)
_PHRASES = {
    ("depends", "out"): _DEPEND_OUT,
    ("depends", "in"): _DEPEND_IN,
    ("duplicates", "both"): ("duplicates", "is duplicated by"),
    ("supersedes", "both"): ("supersedes", "is superseded by"),
}

_FIELDS = _table(
    (
        r"\bstatus\b|\bstate\b|\bstill\s+open\b|\bopen\b|\bclosed\b|\bdone\b|\bwhere\s+(?:are\s+we|does|do\s+we|is)\b|"
        r"\bstand\b|\bprogress\b|\bresolved\b|\bfinished\b|\bfixed\b(?!\s+in\b)|\blatest\s+(?:on|for|with)\b|\bupdates?\s+(?:on|for)\b|"
        r"\bnews\s+(?:on|about)\b",
        "status",
    ),
    (r"\bresol(?:ution|ved)\b", "resolution"),
    (
        r"\bas+ign\w*|\bwho(?:'s|\s+is|\s+was)?\s+(?:on|working|handling|looking|responsible)\b|\bowns?\b|\bowner\b|"
        r"\bwho\s+has\b|\bwho\s+took\b",
        "assignee",
    ),
    (
        r"\breport\w*|\bwho\s+(?:filed|opened|created|raised|logged|wrote|submitted)\b|\bfiled\s+by\b|\bopened\s+by\b|"
        r"\bcreated\s+by\b",
        "reporter",
    ),
    (r"\bpriority\b|\burgent\b|\bseverity\b", "priority"),
    (
        r"\bfix\s*versions?\b|\brelease\b|\bfixed\s+in\b|\bshipped\b|\bship(?:s|ping)?\s+in\b|"
        r"\b(?:which|what)\s+version\b",
        "fix_version",
    ),
    (r"\bcomponents?\b", "component"),
    # "how long did it take to resolve PAY-12?", "how long was PAY-3 open?": created → resolved
    (
        r"\bhow\s+long\s+(?:did\s+it\s+take|did\s+(?:\S+\s+){1,2}take|has\s+(?:\S+\s+){1,2}been\s+open|"
        r"was\s+(?:\S+\s+){1,2}open)\b|"
        r"\bhow\s+many\s+days\s+did\b",
        "took",
    ),
    (r"\b(?:issue\s+)?type\b|\bkind\s+of\s+issue\b", "issue_type"),
    (r"\bwhen\b|\bcreated\b|\bdate\b", "created"),
    (r"\bauthor|\bwho\s+(?:wrote|made|committed)\b", "author"),
)


def field_words(question: str) -> frozenset[str]:
    """The words that ask for a field ("who is assigned", "where do we stand", "status"): what
    is left names the document the field is asked of."""
    return frozenset(
        w for pattern, _ in _FIELDS for m in pattern.finditer(question) for w in words_of(m.group(0))
    )


_QTYPE = _table(
    (r"\bwhy\b|\bcause[sd]?\b|\broot\s+cause\b|\breason\b|\bhow\s+come\b", "why"),
    (r"\bwhat\s+changed\b|\bchanges?\b|\bchangelog\b|\bwhat's\s+new\b", "changed"),
    (r"\bwhen\b|\bwhat\s+date\b|\bhow\s+long\b", "when"),
    (r"\bwho\b|\bwhose\b|\bwhom\b", "who"),
    (
        r"\babout\b|\bwhat\s+is\b|\bwhat's\b|\bdescribe\b|\bexplain\b|\bsummar",
        "about",
    ),
)

_ANAPHOR = re.compile(
    r"\b(it|its|it's|this|that|these|those|they|them|their|same|above|previous|former|latter|"
    r"one|ones|him|her|he|she)\b",
    re.IGNORECASE,
)
_REFERS_BACK = re.compile(
    r"^\s*(?:and|also|plus|what\s+about|how\s+about|and\s+what\s+about)\b|^\s*\.\.\.|…", re.IGNORECASE
)
# "it" as a dummy subject does not refer back: "is it possible", "it seems"
_DUMMY_IT = re.compile(
    r"\b(?:is|was)\s+it\s+(?:possible|true|ok|okay)\b|\bit\s+(?:seems|looks\s+like)\b", re.IGNORECASE
)

# a reference to something said before, as a document is named: "it", "them", "this one", "that
# issue", "that?" — not "that" opening a clause ("the issue that blocks releases")
_REFERENCE = re.compile(
    r"\b(?:it|its|they|them|their|these|those)\b|"
    r"\b(?:this|that)(?:\s+ones?\b|(?=\s*(?:[?!.,;:]|$))|(?=\s+(?:issue|ticket|bug|task|page|"
    r"document|doc|file|commit|pr|pull\s+request|change|one)s?\b))",
    re.IGNORECASE,
)


def parse_question(
    question: str, project_keys: Iterable[str] = (), today: date | None = None, has_context: bool = False
) -> ParsedQuestion:
    lookups = read_lookups(question, project_keys)
    anchor = _anchor_pattern(lookups)
    relation = _relation(question, anchor)
    wanted = _wanted(question)
    anchor_kinds = set(lookups.kinds) - {"project", "space", "repository"}  # scopes, not documents
    follow_up = has_context and is_follow_up(question, lookups.anchored)
    if follow_up and not lookups.anchored:
        anchor_kinds.add("previous answer")
    if relation is None and wanted in ("commit", "pull", "page", "file", "issue") and anchor_kinds - {wanted}:
        # asking for another type of document than the one named is asking how they connect
        name = "worked_on" if wanted in ("commit", "pull") else "mentions"
        relation = Relation(name, "both")
    asks_person = wanted == "person"
    if relation is not None and relation.name == "worked_on" and wanted in (None, "issue", "person"):
        wanted = None
    fields = tuple(dict.fromkeys(name for p, name in _FIELDS if p.search(question)))
    if relation is not None and relation.name != "worked_on":
        fields = tuple(f for f in fields if f not in ("status", "resolution"))
    qtype = next((t for p, t in _QTYPE if p.search(question)), "fact")
    if relation is not None:
        qtype = "who" if asks_person else "list"
    elif fields and qtype in ("about", "fact"):
        qtype = "fact"
    time_from, time_to = _time(question, today or datetime.now(UTC).date())
    if time_from is None and time_to is None:
        time_from = lookups.lookups[0].updated_from if lookups.lookups else None
        time_to = lookups.lookups[0].updated_to if lookups.lookups else None
    reference = None if lookups.anchored else _reference(question)
    return ParsedQuestion(
        question,
        lookups,
        wanted,
        relation,
        time_from,
        time_to,
        fields,
        qtype,
        follow_up,
        words_of(question),
        reference,
        _own_words(question, anchor) if reference else question,
    )


def _reference(question: str) -> str | None:
    """The first word of ``question`` that refers to something said before ("it", "this one"),
    "it" as a dummy subject ("is it possible") left out."""
    m = _REFERENCE.search(_DUMMY_IT.sub(" ", question))
    return " ".join(m.group(0).lower().split()) if m else None


def _own_words(question: str, anchor: str) -> str:
    """``question`` with its references and the words saying what it asks blanked out: the
    relation, the fields, the question type, the wanted document type and an opening "and"/"what
    about" (the same tables the parse reads them with)."""
    text = _DUMMY_IT.sub(" ", question)
    asking = [*_relation_patterns(anchor)]
    asking += [*(p for p, _ in _FIELDS), *(p for p, _ in _QTYPE), *(p for p, _ in _WANTED), _REFERS_BACK]
    for pattern in asking:
        text = pattern.sub(" ", text)
    return _REFERENCE.sub(" ", text)


_NAMES_ANCHOR = re.compile(r"\s*(?:#?\s*\d|[0-9a-f]{7,40}\b|[\w.-]+/[\w./-]+)", re.IGNORECASE)


def _wanted(question: str) -> str | None:
    """The document type asked for: the first type word that is not part of an identifier
    ("pull request #1", "commit 94ecebf…" name the anchor, not what is wanted)."""
    found: list[tuple[int, str]] = []
    for pattern, kind in _WANTED:
        for m in pattern.finditer(question):
            if not _NAMES_ANCHOR.match(question, m.end()):
                found.append((m.start(), kind))
    return min(found)[1] if found else None


def is_follow_up(question: str, anchored: bool = False) -> bool:
    """Refers back to the conversation: "and …", "what about …", an ellipsis, or a pronoun with no
    identifier of its own. A short question is not a follow-up by itself."""
    if _REFERS_BACK.search(question):
        return True
    if anchored:
        return False
    text = _DUMMY_IT.sub(" ", question)
    return bool(_ANAPHOR.search(text))


def _anchor_pattern(lookups: QuestionLookups) -> str:
    keys = [v for lk in lookups.lookups for vs in lk.filters.values() for v in vs]
    names = sorted({re.escape(k) for k in keys if len(k) > 1}, key=len, reverse=True)
    if not names:
        return r"(?:it|this|that|them|these|those|the\s+issue|the\s+ticket)"
    return "(?:" + "|".join(names) + ")"


# _RELATIONS compiled: the patterns without an anchor once, those with one per anchor (the
# identifiers a question names), remembered for the most recent anchors. Compiling them on every
# question overflowed `re`'s own cache of 512 patterns on a stream of new identifiers, and then
# every pattern was compiled again (~1 ms per question).
_FIXED_RELATIONS = {p: re.compile(p, re.IGNORECASE) for p, _, _ in _RELATIONS if "{A}" not in p}


@functools.lru_cache(maxsize=256)
def _relation_patterns(anchor: str) -> tuple[re.Pattern[str], ...]:
    return tuple(
        _FIXED_RELATIONS.get(p) or re.compile(p.replace("{A}", anchor), re.IGNORECASE)
        for p, _, _ in _RELATIONS
    )


def relation_named(question: str, words: Sequence[str]) -> Relation | None:
    """The relation ``question`` asks about when ``words`` (in order, as the question has them)
    name its anchor — a document named by its title rather than an identifier."""
    spelled = r"[\s\-]+".join(re.escape(w) for w in words)
    return _relation(question, rf"(?:the\s+)?{spelled}")


def _relation(question: str, anchor: str) -> Relation | None:
    for compiled, (_, name, direction) in zip(_relation_patterns(anchor), _RELATIONS, strict=True):
        if compiled.search(question):
            return Relation(name, direction, _PHRASES.get((name, direction), ()))
    return None


def _time(question: str, today: date) -> tuple[str | None, str | None]:
    """The question's period as ``(from, to)``, both ends inclusive ("2011-02-01",
    "2011-02-28T23:59:59"): read by the product's one time parser
    (:func:`devkb.agent.history.when.window_in`)."""
    from devkb.agent.history.when import window_in

    window = window_in(question, today)
    if window is None:
        return None, None
    start = window.start[:19].removesuffix("T00:00:00") or None
    last = datetime.fromisoformat(window.end) - timedelta(seconds=1)
    return start, last.strftime("%Y-%m-%dT%H:%M:%S")


def version_since(question: str) -> str | None:
    m = SINCE_VERSION.search(question)
    return m.group(1) if m else None


def expand_ellipsis(now: str | ParsedQuestion, previous: str, project_keys: Iterable[str] = ()) -> str:
    """ "and PAY-1?" / "what about PAY-1?" after "What does PAY-12 depend on?" → "What does PAY-1
    depend on?": the previous question with its identifier replaced, when the new one (``now``,
    already parsed) brings an identifier and nothing else to ask. Otherwise the question unchanged."""
    question = now.text if isinstance(now, ParsedQuestion) else now
    if not previous or not _REFERS_BACK.search(question):
        return question
    if not isinstance(now, ParsedQuestion):
        now = parse_question(question, project_keys)
    if not now.issue_keys or now.relation is not None or now.fields:
        return question
    before = parse_question(previous, project_keys)
    if len(before.issue_keys) != 1:
        return question
    old = before.issue_keys[0]
    new = " and ".join(now.issue_keys)
    return re.sub(rf"(?<![\w-]){re.escape(old)}(?!\w)", new, previous, flags=re.IGNORECASE)
