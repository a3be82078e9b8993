"""What a question asks for beyond its topic — its **focus** — and which sentences hold it.

"Why is the build slow?" is about the build but asks for a *reason*; "what happens when the API
returns 409?" asks for a *consequence* of that condition; "who rotates the sandbox key?" for the
*person* who does it; "how do we retry failed webhooks?" for the *step*. A sentence that shares
the question's words but holds none of that is no answer, however many words it shares.

Everything here is data — phrases as word sequences, read with the words a sentence splits into
(``str.split`` with the punctuation around each word stripped) — not patterns: the focus of a
question from its parsed words (:func:`question_focus`), and whether a sentence holds it
(:func:`holds`). The extractive answer (``agent/extractive.py``) prefers one sentence from the
best source that holds the focus; when none does, it says that the sources mention the topic but
not the reason / the person / …, and the confidence is capped (``kinds/base.py``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from devkb.agent.question import ParsedQuestion, has_phrase
from devkb.agent.tools.filter_docs import keywords, stem

Phrases = tuple[tuple[str, ...], ...]


def _phrases(*texts: str) -> Phrases:
    return tuple(tuple(t.split()) for t in texts)


# -- what the question asks ----------------------------------------------------------------------

# (focus, how an answer that lacks it says so, the phrases of a question that ask for it)
ASKED: tuple[tuple[str, str, Phrases], ...] = (
    (
        "reason",
        "why",
        _phrases(
            "why",
            "how come",
            "what is the reason",
            "what was the reason",
            "what's the reason",
            "reason for",
            "reasons for",
            "the reason",
            "what caused",
            "what causes",
            "what is the cause",
            "root cause",
            "what was the rationale",
            "rationale for",
        ),
    ),
    (
        "condition",
        "what happens then",
        _phrases(
            "what happens",
            # the past asks the same of a condition ("what happened to a payment when Meridian
            # answered 503 …"), not "what happened in March" (a period, the history kind's)
            "what happened when",
            "what happened if",
            "what happened to",
            "what happened with",
            "what will happen",
            "what would happen",
            "what should happen",
            "what if",
            "what do we do if",
            "what do we do when",
            "what do i do if",
            "what do i do when",
            "what should we do if",
            "what should we do when",
            "what should i do if",
            "what should i do when",
            "what to do if",
            "what to do when",
            "how does it behave",
            "how does checkout behave",
            "what is the behaviour",
            "what is the behavior",
        ),
    ),
    (
        "step",
        "how",
        _phrases(
            "how do we",
            "how do i",
            "how do you",
            "how can i",
            "how can we",
            "how can you",
            "how should i",
            "how should we",
            "how does one",
            "how to",
            "how would i",
            "how would we",
            "what are the steps",
            "what steps",
            "steps to",
        ),
    ),
)
# "who" as the first word asks for the person who does the verb after it ("who rotates the key?")
PERSON_WORDS = frozenset({"who", "whom"})
PERSON_PHRASES = _phrases("which person", "which team", "which people", "what team")
# words between "who" and the verb it asks about
AUXILIARIES = frozenset(
    "is are was were does do did should shall will would can could must may might has have had "
    "gets get usually normally typically actually the a an".split()
)
# the verb of a step question is the first content word after these ("how do we *retry* …")
STEP_OPENERS = frozenset("how do we i you can should does one to would what are the steps".split())


@dataclass(frozen=True)
class Focus:
    """What a question asks for: ``name`` (reason | condition | person | step), ``asks`` (how an
    answer lacking it says so: "do not say why"), the asked verb's root for a person or a step
    ("rota" for "who rotates …": rotate, rotated, rotation), and the terms of a condition
    ("when the payments API returns 409" → api, payment, return, 409)."""

    name: str
    asks: str
    verb: str = ""
    clause: frozenset[str] = frozenset()


def _root(word: str) -> str:
    """A verb's root for matching its forms and nouns: "rotates" → "rota" (rotate, rotation)."""
    s = stem(word)
    return s[:5] if len(s) > 5 else s


@functools.lru_cache(maxsize=2048)
def _focus(words: tuple[str, ...]) -> Focus | None:
    if not words:
        return None
    if words[0] in PERSON_WORDS or has_phrase(words[:3], PERSON_PHRASES):
        rest = [w for w in words[1:] if w not in AUXILIARIES]
        verb = rest[0] if rest else ""
        return Focus("person", "who", verb=_root(verb) if verb else "")
    for name, asks, phrases in ASKED:
        if not has_phrase(words, phrases):
            continue
        if name == "condition":
            at = next((i for i, w in enumerate(words) if w in CONDITION_OPENERS), len(words))
            clause = frozenset(keywords(" ".join(words[at + 1 :])))
            return Focus(name, asks, clause=clause)
        if name == "step":
            rest = [w for w in words if w not in STEP_OPENERS]
            verb = rest[0] if rest else ""
            return Focus(name, asks, verb=_root(verb) if verb else "")
        return Focus(name, asks)
    return None


# the words of a question that say what it asks, not what it is about
ASKING_WORDS = frozenset(
    keywords(
        "why what happens happen happened reason reasons cause caused steps step if whenever unless so "
        "come"  # "how come …"
    )
)


def question_focus(parsed: ParsedQuestion) -> Focus | None:
    """The focus of a parsed question, or ``None`` when it asks for a topic, a field or a list
    and no reason, condition, person or step."""
    return _focus(parsed.words)


# -- what a sentence holds -----------------------------------------------------------------------

REASON_CUES = _phrases(
    "because",
    "because of",
    "since",
    "reasons",
    "so",
    "makes",
    "made",
    "instead of",
    "looks like",
    "turned out",
    "after",
    "due to",
    "caused by",
    "causes",
    "caused",
    "root cause",
    "the reason",
    "reason is",
    "reason to",
    "the fact that",
    "blocked on",
    "blocked by",
    "waiting on",
    "waiting for",
    "depends on",
    "so that",
    "in order to",
    "to avoid",
    "to prevent",
    "to ensure",
    "to make sure",
    "to keep",
    "to allow",
    "to enable",
    "so as to",
    "to support",
    "otherwise",
    "as a result",
    "result of",
    "led to",
    "leads to",
    "therefore",
    "hence",
    "thus",
    "which means",
    "this means",
    "that means",
    "so we",
    "so the",
    "so it",
    "so our",
    "requires",
    "required by",
    "requirement",
    "is needed",
    "are needed",
    "needed for",
    "needed to",
    "needs to",
    "in case",
    "for compliance",
    "motivation",
    "rationale",
    "why",
    "the problem is",
    "the issue is",
    "was slow",
    "did not",
    "didn't",
    "does not",
    "doesn't",
    "cannot",
    "can't",
    "fails",
    "failed",
    "broke",
    "breaks",
)
CONDITION_OPENERS = frozenset({"when", "if", "whenever", "once", "after", "on", "unless", "while"})
CONDITION_CUES = _phrases(
    "when",
    "whenever",
    "if",
    "once",
    "after",
    "unless",
    "until",
    "while",
    "then",
    "otherwise",
    "instead",
    "results in",
    "result in",
    "leads to",
    "returns",
    "return",
    "answers",
    "responds",
    "throws",
    "raises",
    "fails",
    "is retried",
    "are retried",
    "keeps",
    "stops",
    "in that case",
    "on failure",
    "on error",
)
ROLE_WORDS = frozenset(
    "owner owners owned own owns team lead leads engineer engineers manager managers on-call oncall "
    "admin admins administrator administrators maintainer maintainers sre ops operator operators "
    "committer committers reviewer reviewers approver approvers responsible person people we you "
    "they developer developers author authors steward stewards assignee user users root "
    "superuser system daemon administrator's group member members support finance security".split()
)
# words that open a sentence the way an instruction does ("Run …", "Use …", "Set …")
IMPERATIVES = frozenset(
    "add allow apply ask avoid build call change check choose click configure confirm connect "
    "copy create define delete deploy disable download edit enable ensure enter export file fill "
    "find follow generate give go import include install keep let link load log make mark merge "
    "move note open pass pick place point post press provide pull push put read rebuild reboot "
    "redeploy regenerate register reload remove rename replace replay request rerun re-run reset "
    "restart restore retry return revert review revoke rotate run save select send set share "
    "sign specify start stop submit switch tag test try turn type update upgrade upload use verify "
    "wait write".split()
)
STEP_CUES = _phrases(
    "you can",
    "you need to",
    "you must",
    "you should",
    "we can",
    "we use",
    "we do",
    "to do this",
    "by running",
    "by using",
    "by calling",
    "by setting",
    "by adding",
    "by passing",
    "is done by",
    "is done with",
    "with backoff",
    "use",
    "using",
    "run",
    "via",
    "step",
    "first",
    "then",
    "call",
    "set",
    "pass",
)
# headings a sentence under which holds the focus ("## Root cause", "## Steps", "Owner")
HEADINGS = {
    "reason": frozenset(
        "root cause|cause|causes|why|background|motivation|rationale|reason|reasons|problem|context|"
        "what went wrong|contributing factors".split("|")
    ),
    "condition": frozenset(
        "behaviour|behavior|errors|error handling|failure|failures|failure modes|edge cases|"
        "what happens|responses|status codes".split("|")
    ),
    "person": frozenset("owner|owners|contacts|contact|team|people|who|responsibilities|roles".split("|")),
    "step": frozenset(
        "steps|how to|procedure|usage|instructions|setup|set up|install|installation|getting started|"
        "example|examples|runbook|what to do|how|checklist|to reproduce|steps to reproduce".split("|")
    ),
}
# the heading of a document's opening section, the one that says what it is for or what goes wrong
# (an issue's or a pull request's description: sources/jira/convert.py, sources/github/convert.py)
OPENING_HEADINGS = frozenset({"description"})


def opening(heading: str) -> bool:
    """Whether a sentence under ``heading`` is in its document's opening section (its description)."""
    return heading.strip().lower() in OPENING_HEADINGS


_PUNCT = ".,;:!?()[]{}\"'`“”‘’<>*\\"


@functools.lru_cache(maxsize=20_000)
def sentence_words(sentence: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A sentence's words as written and lower-cased (punctuation around each word stripped)."""
    raw = tuple(w for w in (t.strip(_PUNCT) for t in sentence.split()) if w)
    while raw and raw[0].isdigit():  # a numbered step ("2\\) Change the Line Spacing …")
        raw = raw[1:]
    return raw, tuple(w.lower() for w in raw)


def comment_author(heading: str) -> str:
    """ "Jonathan Hung" for a comment's heading "Jonathan Hung (2011-05-10)" ("" for another)."""
    name, sep, rest = heading.partition(" (")
    if not sep or not rest.endswith(")") or not all(c.isdigit() or c == "-" for c in rest[:-1]):
        return ""
    return name.strip()


# the verbs of the fields a "who" question reads off a document (assignee, reporter, author, owner):
# a field answers those; any other verb ("who reviewed …", "who found …") asks for a sentence
FIELD_VERB_ROOTS = frozenset(
    "assig repor own owns owner work worki creat open opene file filed raise fix fixed close resol "
    "wrote write autho commi is".split()
)


# words that may open a sentence capitalised without naming anyone ("This has been …")
_NOT_NAMES = frozenset(
    "a an the this that these those it its we you they he she i there here our your their my "
    "some any all every each no one when if then so but and or also".split()
)
_AUX = frozenset("has had have will would is was should can could did does may must".split())


def _names_a_person(raw: tuple[str, ...], people: frozenset[str], verb: str = "") -> bool:
    """Two capitalised words in a row past the first ("… by Priya Raman"), a capitalised word
    after "by" ("reviewed by Anastasia"), a capitalised first word doing the asked verb ("Joanna
    has found …", "Meridian signs …"), a handle ("@priya"), or a person the document itself
    names (its assignee, author, commenters)."""
    for i in range(len(raw) - 1):
        if raw[i].lower() == "by" and raw[i + 1][:1].isupper() and raw[i + 1].lower() not in _NOT_NAMES:
            return True
    if len(raw) > 1 and raw[0][:1].isupper() and raw[0].lower() not in _NOT_NAMES:
        second = raw[1].lower()
        if second in _AUX or (verb and second.startswith(verb)):
            return True
    for i in range(1, len(raw) - 1):
        a, b = raw[i], raw[i + 1]
        if a[:1].isupper() and b[:1].isupper() and a[1:].islower() and b[1:].islower() and len(a) > 1:
            return True
    if any(w.startswith("@") and len(w) > 2 for w in raw):
        return True
    text = " ".join(raw)
    return any(p and p in text for p in people)


def _has_root(lower: tuple[str, ...], root: str) -> bool:
    return bool(root) and any(w.startswith(root) for w in lower)


def under_heading(focus: Focus, heading: str) -> bool:
    """Whether a sentence under ``heading`` holds the focus by where it stands: "## Root cause"
    for a reason, "## Steps" (or a heading with the asked verb) for a step."""
    heading = heading.lower()
    if not heading:
        return False
    if heading in HEADINGS[focus.name] or any(heading.startswith(h + " ") for h in HEADINGS[focus.name]):
        return True
    return focus.name == "step" and _has_root(sentence_words(heading)[1], focus.verb)


def strength(focus: Focus, sentence: str, people: frozenset[str] = frozenset(), heading: str = "") -> float:
    """How well ``sentence`` holds the focus: 0 when it does not; 1 when it does; 2 when it
    also holds the asked verb (a person or step) or the condition's distinctive terms. A
    sentence under a heading that holds the focus (:func:`under_heading`) holds it at least 1."""
    raw, lower = sentence_words(sentence)
    if not lower or code_like(sentence):
        return 0.0
    own = _strength(focus, raw, lower, sentence, people)
    return max(own, 1.0) if under_heading(focus, heading) else own


CONSEQUENCE_CUES = _phrases(
    "notice that",
    "is thrown",
    "are thrown",
    "error",
    "crash",
    "crashes",
    "nothing",
    "not",
    "never",
    "no longer",
    "keeps",
    "stops",
    "instead",
    "will",
    "shows",
    "appears",
    "fails",
    "becomes",
    "gets",
    "is sent",
    "are sent",
    "we now",
)


def code_like(sentence: str) -> bool:
    """A line of code rather than prose (``sequence = int(event["sequence"])``)."""
    marks = sum(sentence.count(c) for c in "=(){}[];<>")
    s = sentence.lstrip()
    return (
        marks > max(3, len(sentence) // 20)
        or s.startswith(('"""', "def ", "return ", "import ", "from "))
        # a source file's lines joined into one: an inline comment ("status: int | None  # None while …")
        or "  # " in sentence
    )


def _strength(
    focus: Focus, raw: tuple[str, ...], lower: tuple[str, ...], sentence: str, people: frozenset[str]
) -> float:
    if focus.name == "reason":
        return 1.0 if has_phrase(lower, REASON_CUES) else 0.0
    if focus.name == "condition":
        then = 0.5 if has_phrase(lower, CONSEQUENCE_CUES) else 0.0
        if not (then or has_phrase(lower, CONDITION_CUES) or lower[0] in CONDITION_OPENERS):
            return 0.0
        if not focus.clause:
            return 1.0
        held = focus.clause & keywords(sentence)
        if any(any(c.isdigit() for c in t) for t in held) or len(held) >= 2:
            return 2.0 + then
        return 1.0 + then if held else 0.0
    if focus.name == "person":
        agent = _names_a_person(raw, people, focus.verb) or any(w in ROLE_WORDS for w in lower)
        return 2.0 if agent and _has_root(lower, focus.verb) else 0.0
    if focus.name == "step":
        verb = _has_root(lower, focus.verb)
        imperative = lower[0] in IMPERATIVES or (lower[0] == "to" and len(lower) > 2 and "," in sentence)
        procedural = (
            imperative
            or has_phrase(lower, STEP_CUES)
            or "`" in sentence
            or sentence.rstrip().endswith(":")
            or any(w in ("we", "you") for w in lower)
        )
        if verb:
            return 2.0 if procedural else 1.0
        return 0.5 if imperative else 0.0
    return 0.0


def explains(sentence: str, q: set[str] | frozenset[str]) -> bool:
    """ "Closing the PR: the platform team's library gives us …", "Restricted: knowing the exact
    limits helps …" — a short head that names what the question asks about (a word of the
    question, by its first four letters), a colon, and the clause that explains it."""
    head, sep, rest = sentence.partition(": ")
    if not sep or len(rest.split()) < 4:
        return False
    head_words = sentence_words(head)[1]
    if not head_words or len(head_words) > 4:
        return False
    prefixes = {t[:4] for t in q if len(t) >= 4}
    return any(w[:4] in prefixes for w in head_words if len(w) >= 4)


def owner_line(line: str) -> bool:
    """ "Owner: Priya Raman", "Maintainer: the payments team" — a line that names who is
    responsible for what the document describes, however short."""
    head, sep, value = line.partition(":")
    if not sep or not value.strip():
        return False
    head_words = sentence_words(head)[1]
    return bool(head_words) and len(head_words) <= 3 and head_words[-1] in ROLE_WORDS
