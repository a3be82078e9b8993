"""Who to ask: "who knows about X", "who owns X", "who should I ask about X", "who is the expert on
X", "who is working on X" with no issue, commit or pull request named (a quoted title or a path is part of X) → a search for X, then the people on the documents found, ranked by
what they did there (assignee and author 3, reporter 2 — added up when one person did both —,
commenter or editor 1), by how recent the document is (half the weight per ``HALF_LIFE_YEARS``
older than the newest), by its rank and by how much of X it holds; each person with the
documents that name them, cited. Only the documents the reader may see are searched, so nobody is
named from a document the reader cannot open.

One person, one entry: GitHub names a pull request's or an issue's people by login ("mchen"), while
Jira, Confluence and commits name them in full ("Marcus Chen"). A login that is a usual handle of
exactly one full name among the people found (``handles``) is counted as that person and shown
as "Marcus Chen (mchen)"; a login that fits two names, or none, stays on its own."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

from devkb.agent.answer import Confidence, Status
from devkb.agent.confidence import META_WORDS, text_words
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import focus_passages, focused_sentences, identifier, people_of
from devkb.agent.focus import question_focus
from devkb.agent.frame.model import Frame
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step, assess_topic
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools import RAGSearch
from devkb.agent.tools.filter_docs import keywords
from devkb.agent.words import name_words

STEP = Step(RAGSearch.name, "who to ask: the documents about the topic, then their people")
ASKING_WORDS = frozenset(
    "who knows know owns own owner ask asking expert experts help talk to contact do should can i working works worked".split()
)
ROLES = (("assignee", 3.0, "assignee"), ("author", 3.0, "author"), ("reporter", 2.0, "reporter"))
# a document's weight halves per this many years older than the newest (tuned on the tuning split
# of devkb_devtools.evaluation.who_eval: 1 year let newer neighbouring issues outrank the one about the
# topic; 3 to 6 years and no decay at all score the same there, so the shortest of the plateau)
HALF_LIFE_YEARS = 3.0
COVERAGE_POWER = 2  # a document counts by the share of the topic's words it holds, to this power
SHOWN = 5
NAMED_DOCUMENTS = frozenset({"issue", "commit", "pull"})
# words that name a document rather than a topic ("who owns this issue?"), as keywords() has them
DOCUMENT_WORDS = frozenset(
    "one issue ticket bug task page document doc file commit pr prs pull request change".split()
)


class WhoToAsk(QuestionKind):
    name = "who-to-ask"

    def recognises(self, frame: Frame, parsed: ParsedQuestion, carried: bool) -> bool:
        # "who knows about X", "who is the expert on X", "who is working on X" (the frame's form
        # "expert"); a named issue, commit or pull request is a document whose people are its
        # fields (Lookup answers "who owns PAY-12"); a quoted title or a file path is part of the topic
        named = parsed.lookups.kinds & NAMED_DOCUMENTS
        if carried and refers_back_only(parsed):
            return False  # "who owns it?" after a turn: the carried document's people (CarryOver)
        return not named and frame.takes("expert")

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [STEP]

    def run(self, ctx: Context) -> None:
        ctx.toolbox.rag_search.run(ctx.scope, topic(ctx.parsed) or ctx.parsed.text)
        ctx.took(STEP)

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        ranked = rank_people(docs, topic(out.parsed))
        if not ranked:
            # no document names a person in its fields (a manual, a page without an author): the
            # sentence that says who does it ("… keeps its spool directories owned by lp/lp")
            said = saying_who(out, docs)
            return said or "No person is named on the documents found about this."
        items = []
        for person, _, roles in ranked[:SHOWN]:
            did = ", ".join(f"{_did(role, name)} [{n}]" for role, name, n in roles[:3])
            items.append(f"{person} — {did}")
        return "People who worked on this, most involved first: " + "; ".join(items) + "."

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        status, confidence = assess_topic(topic(out.parsed), docs)
        if status != "not_found" and not rank_people(docs, topic(out.parsed)):
            return "partial", confidence
        return status, confidence


def saying_who(out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
    """The sentences of ``docs`` that say who does what the question asks (agent/focus.py), cited;
    "" when none does."""
    focus = question_focus(out.parsed)
    if focus is None or focus.name != "person":
        return ""
    people = {i: people_of(d) for i, d in enumerate(docs, 1)}
    found = focused_sentences(out.parsed.text, focus_passages(docs), focus, people, meaning=out.meaning)
    return " ".join(f"{s} [{n}]" for n, s in found)


OTHER_ROLE = "commented on or changed"


def _did(role: str, document: str) -> str:
    """ "assignee of PAY-5", "commented on or changed PAY-1" (a verb takes no "of")."""
    return f"{role} {document}" if role == OTHER_ROLE else f"{role} of {document}"


def topic(parsed: ParsedQuestion) -> str:
    """The question without the words that ask for a person: what the person should know about."""
    return " ".join(w for w in parsed.words if w not in ASKING_WORDS)


def refers_back_only(parsed: ParsedQuestion) -> bool:
    """Whether the topic is only a reference to the previous turn ("it", "this one", "that issue")."""
    return parsed.reference is not None and not (keywords(topic(parsed)) - DOCUMENT_WORDS)


def rank_people(
    docs: Sequence[EvidenceDoc], about: str = ""
) -> list[tuple[str, float, list[tuple[str, str, int]]]]:
    """(person, weight, [(role, document, citation number)]) best first. A document counts by how
    much of ``about`` (the topic's words) it holds, squared: people on the document that is about
    the topic outweigh people on documents that only touch it."""
    newest = max((_year(d) for d in docs), default=0.0)
    wanted = keywords(about) - META_WORDS
    weight: dict[str, float] = defaultdict(float)
    roles: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for n, doc in enumerate(docs, 1):
        meta = doc.document.metadata
        recency = 0.5 ** (max(0.0, newest - _year(doc)) / HALF_LIFE_YEARS) if newest else 1.0
        rank = 1.0 / (1.0 + 0.3 * (n - 1))
        if wanted:
            rank *= (len(wanted & text_words(_text(doc))) / len(wanted)) ** COVERAGE_POWER
        seen: set[str] = set()
        for key, w, role in ROLES:  # roles add up: who filed and fixed an issue did both
            person = meta.get(key)
            if isinstance(person, str) and person and person != "unknown":
                seen.add(person)
                weight[person] += w * recency * rank
                roles[person].append((role, identifier(doc), n))
        for person in meta.get("people") or []:
            if isinstance(person, str) and person and person != "unknown" and person not in seen:
                seen.add(person)
                weight[person] += 1.0 * recency * rank
                roles[person].append((OTHER_ROLE, identifier(doc), n))
    merged: dict[str, list[str]] = defaultdict(list)  # full name -> its logins, in order met
    for login, name in logins_of(list(weight)).items():
        merged[name].append(login)
    for name, logins in merged.items():
        shown = f"{name} ({', '.join(logins)})"
        weight[shown] = weight.pop(name) + sum(weight.pop(login) for login in logins)
        roles[shown] = sorted(
            [*roles.pop(name), *(r for login in logins for r in roles.pop(login))], key=lambda r: r[2]
        )
    return sorted(((p, w, roles[p]) for p, w in weight.items()), key=lambda t: (-t[1], t[0]))


_LOGIN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-")


def _login_shaped(login: str) -> bool:
    """A letter or digit, then letters, digits, ".", "_" or "-" (a GitHub login, a user name)."""
    return bool(login) and login[0].isalnum() and set(login) <= _LOGIN_CHARS


def handles(name: str) -> set[str]:
    """The handles a person called ``name`` usually has (GitHub logins, user names): for "Marcus
    Chen" mchen, marcusc, marcuschen, marcus.chen, marcus-chen, marcus_chen, chenm, chen.marcus.
    Empty for a name of one word (it would match too much)."""
    words = name_words(name)
    if len(words) < 2:
        return set()
    first, last = words[0], words[-1]
    return {
        first[0] + last,
        first + last[0],
        first + last,
        f"{first}.{last}",
        f"{first}-{last}",
        f"{first}_{last}",
        last + first[0],
        f"{last}.{first}",
    }


def logins_of(people: Sequence[str]) -> dict[str, str]:
    """login → the one full name among ``people`` it is a handle of (a login fitting two names is
    left out: "mchen" beside Marcus Chen and Mei Chen could be either)."""
    names = [p for p in people if " " in p.strip()]
    out: dict[str, str] = {}
    for login in people:
        if not _login_shaped(login.lower()):
            continue
        fits = [n for n in names if login.lower() in handles(n)]
        if len(fits) == 1:
            out[login] = fits[0]
    return out


def _text(doc: EvidenceDoc) -> str:
    return f"{doc.document.title} {' '.join(doc.passages)}"


def _year(doc: EvidenceDoc) -> float:
    when = doc.document.updated_at[:10]
    try:
        d = datetime.strptime(when, "%Y-%m-%d")
    except ValueError:
        return 0.0
    return d.year + (d.timetuple().tm_yday - 1) / 366
