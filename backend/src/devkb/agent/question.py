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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from devkb.agent.identifiers import QuestionLookups, read_lookups
from devkb.agent.patterns import ISSUE_KEY, SINCE_VERSION
from devkb.agent.words import Pattern, finditer, first, search, spans, table
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


# -- the tables: word patterns (agent/words.py's syntax) → what they mean; read in this order ----
WANTED = table(
    ("pull request|requests", "pull"),
    ("pullrequest|pullrequests|pr|prs", "pull"),
    ("merge request|requests", "pull"),
    ("commit|commits|committed|changeset|changesets", "commit"),
    ("git log", "commit"),
    ("code change|changes", "commit"),
    ("page|pages|wiki|handbook|confluence", "page"),
    ("file|files|markdown", "file"),
    ("doc|docs file", "file"),
    ("who|whom|whose|person|people", "person"),
    ("issue|issues|ticket|tickets|bug|bugs|task|tasks|jira|jiras", "issue"),
)

# relation rows → (name, direction seen from the anchor); the first row that matches decides.
# {A} is the anchor: the identifiers the question names, or "it", "this", "the issue", …
_DEPEND_OUT = ("depends on", "is blocked by")
_DEPEND_IN = ("is depended on by", "blocks")
_OUT = ("depends", "out")
_IN = ("depends", "in")
_WORKED = ("worked_on", "both")
_RELATED = ("related", "both")
RELATIONS = table(
    # "what does X depend on", "X depends on which", "what is X waiting on", "what's blocking X",
    # "what needs to land before X", "X is blocked by"
    ("does|do|did {A} depend|rely", _OUT),
    ("{A} depends|relies on", _OUT),
    ("dependencies of {A}", _OUT),
    ("{A} s? dependencies", _OUT),
    ("{A} is? waiting on|for", _OUT),
    ("block|blocking|blocks {A}", _OUT),
    ("{A} is? blocked by", _OUT),
    ("before {A}", _OUT),
    ("what is|was {A} waiting", _OUT),
    # "what depends on X", "what is X blocking", "what is waiting on X", "X blocks what"
    ("depend|depends|depending|depended|relies|rely on|upon {A}", _IN),
    ("{A} is? blocking", _IN),
    ("{A} blocks", _IN),
    ("waiting on|for {A}", _IN),
    ("blocked by {A}", _IN),
    ("dependents of {A}", _IN),
    ("duplicat*", ("duplicates", "both")),
    ("sub task|tasks", ("subtask", "both")),
    ("subtask|subtasks|child|children|parent", ("subtask", "both")),
    ("supersed*", ("supersedes", "both")),
    ("worked on", _WORKED),
    ("work|working on|for", _WORKED),
    ("implement*|touch*", _WORKED),
    # "which PRs fixed the double payment bug?": the changes that did it, not its status
    ("which|what commit|commits|change|changes|pr|prs fixed|resolved|closed|addressed", _WORKED),
    ("which|what pull request|requests fixed|resolved|closed|addressed", _WORKED),
    ("mention*|referenc*|cites|cited|citing", ("mentions", "both")),
    ("related|relateds|relate|relates|relation|relations|relationship|relationships", _RELATED),
    ("link|linked|links|connected|associated|depend*|block*", _RELATED),
    ("what else", _RELATED),
)
_PHRASES = {
    ("depends", "out"): _DEPEND_OUT,
    ("depends", "in"): _DEPEND_IN,
    ("duplicates", "both"): ("duplicates", "is duplicated by"),
    ("supersedes", "both"): ("supersedes", "is superseded by"),
}
# what a question without an identifier points at
_POINTERS = (
    ("it",),
    ("this",),
    ("that",),
    ("them",),
    ("these",),
    ("those",),
    ("the", "issue"),
    ("the", "ticket"),
)

FIELDS = table(
    ("still open", "status"),
    ("status|state|open|closed|done|stand|progress|resolved|finished", "status"),
    ("where are we", "status"),
    ("where does|is", "status"),
    ("where do we", "status"),
    ("fixed !in", "status"),
    ("latest on|for|with", "status"),
    ("update|updates on|for", "status"),
    ("news on|about", "status"),
    ("resolution|resolved", "resolution"),
    ("assign*|asign*", "assignee"),
    ("who s|is|was? on|working|handling|looking|responsible", "assignee"),
    ("own|owns|owner", "assignee"),
    ("who has|took", "assignee"),
    ("report*", "reporter"),
    ("who filed|opened|created|raised|logged|wrote|submitted", "reporter"),
    ("filed|opened|created by", "reporter"),
    (
        "filed|opened|created|raised|reported and? by whom",
        "reporter",
    ),  # "when was WEB-3 created and by whom?"
    ("priority|urgent|severity", "priority"),
    ("fix version|versions", "fix_version"),
    ("fixversion|fixversions|release|shipped", "fix_version"),
    ("fixed in", "fix_version"),
    ("ship|ships|shipping in", "fix_version"),
    ("which|what version", "fix_version"),
    ("component|components", "component"),
    # "how long did it take to resolve PAY-12?", "how long was PAY-3 open?": created → resolved
    ("how long did _ _? _? take", "took"),
    ("how long has _ _? _? been open", "took"),
    ("how long was _ _? _? open", "took"),
    ("how many days did", "took"),
    ("issue? type", "issue_type"),
    ("kind of issue", "issue_type"),
    ("when|created|date", "created"),
    ("author*", "author"),
    ("who wrote|made|committed", "author"),
)

QTYPES = table(
    ("why|cause|causes|caused|causing|reason", "why"),
    ("root cause", "why"),
    ("how come", "why"),
    ("what changed", "changed"),
    ("change|changes|changelog", "changed"),
    ("what s new", "changed"),
    ("when", "when"),
    ("what date", "when"),
    ("how long", "when"),
    ("who|whose|whom", "who"),
    ("about|describe|explain|summar*", "about"),
    ("what is", "about"),
    ("what s", "about"),
)

# an indirect question opens with words that ask whether someone knows, not the question itself
# ("does anyone know who leads X", "can someone tell me when …", "any idea why …", "I was wondering
# how …"): what is asked is the question after them (:func:`embedded_question`), and an embedded
# "if" or "whether" asks yes or no ("does anyone know if the flag is on")
INDIRECT = table(
    ("^ does|do|did anyone|anybody|someone|somebody|you|u|ya|everyone happen? to? know|remember", True),
    ("^ anyone|anybody|someone|somebody know|knows|remember", True),
    ("^ can|could|would|will anyone|anybody|someone|somebody|you tell|remind|show me|us", True),
    ("^ can|could|would|will anyone|anybody|someone|somebody|you explain|clarify to? me|us?", True),
    ("^ any|anyone|anybody|someone have? got? any? idea|ideas|clue|clues|thoughts on?", True),
    ("^ no idea", True),
    ("^ i|we d|would like to know|understand|ask", True),
    ("^ i|we want|wanted|need|needed to know|understand|ask", True),
    ("^ i|we was|were|am|are|m|re wondering|curious", True),
    ("^ i|we wonder|wondered", True),
    ("^ just? wondering|curious", True),
    ("^ i|we don t|dont know|remember", True),
    ("^ i|we forgot|forget", True),
    ("^ please? tell|remind me|us", True),
    ("^ do|does anyone|anybody|someone|you have any? idea|clue", True),
    ("^ question", True),
)
# words said before a question that are not part of it ("hey", "quick question", "sorry")
OPENING_FILLER = frozenset(
    "hey hi hello ok okay so um uh quick question folks team all guys sorry hmm btw also".split()
)
# an embedded question that asks yes or no ("… know if the flag is on", "… whether it ships")
EMBEDDED_YES_NO = frozenset(("if", "whether"))


def indirect(words: Sequence[str]) -> bool:
    """Whether ``words`` open with an indirect question's words ("does anyone know", "any idea")."""
    ws = tuple(words)
    while ws and ws[0] in OPENING_FILLER:
        ws = ws[1:]
    found = first(INDIRECT, ws)
    return found is not None and found[0].end < len(ws)


def embedded_question(words: Sequence[str]) -> tuple[str, ...]:
    """The words of the question ``words`` asks, an indirect opening left out: "does anyone know
    who leads the Preferences Framework" → "who leads the preferences framework"; "hey, any idea
    when PAY-214 ships" → "when pay 214 ships". A direct question is returned as it is (its
    greetings left out). The first word may be "if" or "whether": a yes-or-no question embedded."""
    ws = tuple(words)
    while ws and ws[0] in OPENING_FILLER:
        ws = ws[1:]
    found = first(INDIRECT, ws)
    if found is None or found[0].end >= len(ws):
        return ws
    rest = ws[found[0].end :]
    while rest and rest[0] in OPENING_FILLER:
        rest = rest[1:]
    return rest or ws


# words that point back at something said before
ANAPHORS = frozenset(
    "it its this that these those they them their same above previous former latter one ones him her he "
    "she".split()
)
REFERS_BACK = table(("^ and|also|plus", True), ("^ what|how about", True))
# "it" as a dummy subject does not refer back: "is it possible", "it seems"
DUMMY_IT = table(("is|was it possible|true|ok|okay", True), ("it seems", True), ("it looks like", True))
# a reference as a document is named: "it", "them", "this one", "that issue", "that?" — not "that"
# opening a clause ("the issue that blocks releases")
_REFERENCE_WORDS = frozenset(("it", "its", "they", "them", "their", "these", "those"))
_POINTING = frozenset(("this", "that"))
_DOCUMENT_NOUNS = frozenset(
    w + s
    for w in (
        "issue",
        "ticket",
        "bug",
        "task",
        "page",
        "document",
        "doc",
        "file",
        "commit",
        "pr",
        "change",
        "one",
    )
    for s in ("", "s")
)


@dataclass(frozen=True)
class _Words:
    """A question's words with where each is in the text; ``kept`` marks the words not blanked."""

    text: str
    words: tuple[str, ...]
    tokens: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]

    @staticmethod
    def of(text: str) -> _Words:
        return _Words(text, words_of(text), tokens_of(text), spans(text))

    def without(self, keep: Sequence[int]) -> _Words:
        return _Words(
            self.text,
            tuple(self.words[i] for i in keep),
            tuple(self.tokens[i] for i in keep),
            tuple(self.spans[i] for i in keep),
        )

    def blank(
        self, rows: Iterable[tuple[Pattern, object]], anchors: Sequence[tuple[str, ...]] = ()
    ) -> _Words:
        """These words with every match of ``rows`` taken out (one row after the other)."""
        out = self
        for pattern, _ in rows:
            gone = {i for f in finditer(pattern, out.words, anchors) for i in range(f.start, f.end)}
            if gone:
                out = out.without([i for i in range(len(out.words)) if i not in gone])
        return out

    def punctuated_after(self, i: int) -> bool:
        """Whether word ``i`` ends the text or a sentence piece ("that?", "this." — the words
        blanked after it left out)."""
        upto = self.spans[i + 1][0] if i + 1 < len(self.spans) else len(self.text)
        rest = "".join(c for c in self.text[self.spans[i][1] : upto] if not (c.isalnum() or c == "_")).strip()
        return rest[0] in "?!.,;:" if rest else i + 1 == len(self.spans)


def parse_question(
    question: str, project_keys: Iterable[str] = (), today: date | None = None, has_context: bool = False
) -> ParsedQuestion:
    today = today or datetime.now(UTC).date()
    lookups = read_lookups(question, project_keys, today)
    said = _Words.of(question)
    anchors = _anchors(lookups)
    relation = _relation(said.words, anchors)
    wanted = _wanted(said)
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
    fields = tuple(dict.fromkeys(name for p, name in FIELDS if search(p, said.words)))
    if relation is not None and relation.name != "worked_on":
        fields = tuple(f for f in fields if f not in ("status", "resolution"))
    qtype = next((t for p, t in QTYPES if search(p, said.words)), "fact")
    if relation is not None:
        qtype = "who" if asks_person else "list"
    elif fields and qtype in ("about", "fact"):
        qtype = "fact"
    time_from, time_to = _time(question, today)
    reference = None if lookups.anchored else _reference(said)
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
        said.words,
        reference,
        _own_words(said, anchors) if reference else question,
    )


def field_words(question: str) -> frozenset[str]:
    """The words that ask for a field ("who is assigned", "where do we stand", "status"): what
    is left names the document the field is asked of."""
    ws = words_of(question)
    said = (w for pattern, _ in FIELDS for f in finditer(pattern, ws) for w in ws[f.start : f.end])
    # "authoring", "authors" ask for the author field, but only their "author" says so
    return frozenset("author" if w.startswith("author") else w for w in said)


def _reference(said: _Words) -> str | None:
    """The first word of the question that refers to something said before ("it", "this one"),
    "it" as a dummy subject ("is it possible") left out."""
    return next((" ".join(said.words[a:b]) for a, b in _references(said.blank(DUMMY_IT))), None)


def _references(said: _Words) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    ws = said.words
    for i, w in enumerate(ws):
        nxt = ws[i + 1] if i + 1 < len(ws) else ""
        if w in _REFERENCE_WORDS:
            out.append((i, i + 1))
        elif w in _POINTING:
            if nxt in ("one", "ones"):
                out.append((i, i + 2))
            elif (
                nxt in _DOCUMENT_NOUNS or said.punctuated_after(i) or ws[i + 1 : i + 3] == ("pull", "request")
            ):
                out.append((i, i + 1))
    return out


def _own_words(said: _Words, anchors: Sequence[tuple[str, ...]]) -> str:
    """The question with its references and the words saying what it asks blanked out: the
    relation, the fields, the question type, the wanted document type and an opening "and"/"what
    about" (the same tables the parse reads them with)."""
    rest = said.blank(DUMMY_IT).blank(RELATIONS, anchors).blank(FIELDS).blank(QTYPES).blank(WANTED)
    rest = rest.blank(REFERS_BACK)
    gone = {i for a, b in _references(rest) for i in range(a, b)}
    return " ".join(t for i, t in enumerate(rest.tokens) if i not in gone)


def _wanted(said: _Words) -> str | None:
    """The document type asked for: the first type word that is not part of an identifier
    ("pull request #1", "commit 94ecebf…" name the anchor, not what is wanted)."""
    found: list[tuple[int, str]] = []
    for pattern, kind in WANTED:
        for f in finditer(pattern, said.words):
            if not _names_anchor(said.text[said.spans[f.end - 1][1] :]):
                found.append((f.start, kind))
    return min(found)[1] if found else None


def _names_anchor(rest: str) -> bool:
    """Whether ``rest`` (the text after a type word) opens with an identifier: a number ("#12",
    "12"), a SHA of 7 to 40 characters, a path."""
    rest = rest.lstrip()
    if rest[:1] == "#":
        return rest[1:].lstrip()[:1].isdigit()
    if rest[:1].isdigit():
        return True
    hex_run = len(rest) - len(rest.lstrip("0123456789abcdefABCDEF"))
    if 7 <= hex_run <= 40 and not _word_char(rest[hex_run : hex_run + 1]):
        return True
    i = 0
    while i < len(rest) and (_word_char(rest[i]) or rest[i] in ".-"):
        i += 1
    return 0 < i < len(rest) - 1 and rest[i] == "/" and (_word_char(rest[i + 1]) or rest[i + 1] in "./-")


def _word_char(c: str) -> bool:
    return bool(c) and (c.isalnum() or c == "_")


def refers_back(question: str) -> bool:
    """ "and …", "also …", "what about …", an ellipsis: the question continues the one before."""
    stripped = question.lstrip()
    return stripped.startswith("...") or "…" in question or first(REFERS_BACK, words_of(question)) is not None


def is_follow_up(question: str, anchored: bool = False) -> bool:
    """Refers back to the conversation: "and …", "what about …", an ellipsis, or a pronoun with no
    identifier of its own. A short question is not a follow-up by itself."""
    if refers_back(question):
        return True
    if anchored:
        return False
    return any(w in ANAPHORS for w in _Words.of(question).blank(DUMMY_IT).words)


def _anchors(lookups: QuestionLookups) -> tuple[tuple[str, ...], ...]:
    """The word sequences that name the question's anchor: its identifiers (longest first), or
    the words that point at one ("it", "this", "the issue")."""
    keys = [v for lk in lookups.lookups for vs in lk.filters.values() for v in vs]
    names = sorted({k for k in keys if len(k) > 1}, key=len, reverse=True)
    found = tuple(dict.fromkeys(w for w in (words_of(k) for k in names) if w))
    return found or _POINTERS


def relation_named(question: str, words: Sequence[str]) -> Relation | None:
    """The relation ``question`` asks about when ``words`` (in order, as the question has them)
    name its anchor — a document named by its title rather than an identifier."""
    named = words_of(" ".join(words))
    return _relation(words_of(question), (("the", *named), named))


def _relation(words: Sequence[str], anchors: Sequence[tuple[str, ...]]) -> Relation | None:
    for pattern, (name, direction) in RELATIONS:
        if search(pattern, words, anchors):
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
    if not previous or not refers_back(question):
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
    return ISSUE_KEY.sub(lambda m: new if m.group(0).upper() == old else m.group(0), previous)
