"""The one understanding step: a question → a :class:`~devkb.agent.frame.model.Frame`.

The extractor reads the question's words once with the phrase tables of
:mod:`devkb.agent.frame.phrases` (no pattern of its own), takes what the rules parse already
found (identifiers, projects, spaces, repositories: :mod:`devkb.agent.identifiers`), reads the
period with the product's one time parser (:func:`devkb.agent.history.when.window_in`: relative,
absolute, ranges, quarters, ISO weeks, "since", "before", in the server's zone), and resolves every
name against what the store knows through a :class:`Resolver` (people with their first names
completed, projects by key or name, versions, statuses, priorities). A name that resolves to
nothing stays in the frame as unresolved — the answer reports it; it is never dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Protocol, cast

from devkb.agent.frame import phrases as P
from devkb.agent.frame.match import compile_table, forms_of, tokenize
from devkb.agent.frame.model import Frame, Period, Person, Role, Scope, Shape
from devkb.agent.history.when import window_in
from devkb.agent.question import ParsedQuestion, field_words, indirect, tokens_of, words_of


class Resolver(Protocol):
    """What the store knows, as the extractor asks it."""

    def people(self, said: str) -> list[str]:
        """The full names that fit ``said`` (a full name, a first or a last name)."""

    def value(self, field: str, said: str) -> str | None:
        """``said`` as a stored value of ``field`` (fix_version, status, priority, …), or None."""

    def project_named(self, said: str, by_name: bool = False) -> str | None:
        """The key of the project named ``said`` (its key; with ``by_name`` its name too), or None."""

    def title(self, said: str) -> str | None:
        """The title of the document ``said`` names (a part of its title), or None."""

    def asker(self) -> str:
        """The name of the person asking, as their account holds it ("" when unknown)."""


class NoResolver:
    """Knows nothing: every name stays as said (the frame of a question without a store)."""

    def people(self, said: str) -> list[str]:
        return [said] if " " in said else []

    def value(self, field: str, said: str) -> str | None:
        return None

    def project_named(self, said: str, by_name: bool = False) -> str | None:
        return None

    def title(self, said: str) -> str | None:
        return None

    def asker(self) -> str:
        return ""


def _find(words: Sequence[str], phrase: Sequence[str], start: int = 0) -> int:
    n = len(phrase)
    for i in range(start, len(words) - n + 1):
        if tuple(words[i : i + n]) == tuple(phrase):
            return i
    return -1


def _all(words: Sequence[str], phrase: Sequence[str]) -> list[int]:
    out, i = [], _find(words, phrase)
    while i >= 0:
        out.append(i)
        i = _find(words, phrase, i + 1)
    return out


def extract(parsed: ParsedQuestion, resolver: Resolver | None = None, today: date | None = None) -> Frame:
    """The frame of ``parsed`` (the rules parse of the same question)."""
    resolver = resolver or NoResolver()
    text = parsed.text
    toks = tokens_of(text)
    words = tuple(t.lower() for t in toks)
    used: set[int] = set()

    def take(phrase: Sequence[str], at: int) -> None:
        used.update(range(at, at + len(phrase)))

    shape = _shape(words, parsed)
    # document kinds and issue types
    kinds: list[str] = []
    types: list[str] = []
    kind_at: set[int] = set()  # the words that name a kind or a type
    for table, out in ((P.KINDS, kinds), (P.ISSUE_TYPES, types)):
        for phrase, meaning in table:
            for at in _all(words, phrase):
                if (
                    words[at + len(phrase) : at + len(phrase) + 1]
                    and words[at + len(phrase)] in P.NOT_A_TYPE_BEFORE
                ):
                    continue  # "story points", "task force": a compound, not the type
                if used.isdisjoint(range(at, at + len(phrase))):
                    take(phrase, at)
                    kind_at.update(range(at, at + len(phrase)))
                    if meaning not in out:
                        out.append(meaning)
    if types and "issue" not in kinds:
        kinds.append("issue")
    # a set asked: a count, a list, a ranking, or a fragment of conditions ("critical FLUID bugs
    # from 2012") — only then is a project said by its name or by its key in lower case a scope
    # (never in a search: "what happens when the Payments API returns 409?")
    setlike = shape in ("count", "list", "rank") or (
        shape == "search"
        and bool(kinds or any(w in P.ANY_DOCUMENTS for w in words))
        and bool(words)
        and words[0] not in P.QUESTION_OPENERS
    )
    any_documents = False  # "closed items in FLUID for 3.0": documents of any kind, counted
    for i, w in enumerate(words):
        if setlike and w in P.ANY_DOCUMENTS and i not in used:
            any_documents = True
            used.add(i)
    projects = list(parsed.projects)
    for i, w in enumerate(words):
        if setlike and toks[i].islower() and (i and words[i - 1] in P.PROJECT_BEFORE or (i + 1) in kind_at):
            key = resolver.project_named(w)  # "tickets for fluid", "sjrk bugs"
            if key and key not in projects:
                projects.append(key)
    for i, w in enumerate(words):
        j = i + 1
        while setlike and toks[i].istitle() and j < min(i + 4, len(toks)) and toks[j].istitle():
            j += 1  # "Fluid Engage bugs": the project named ENGAGE, not the key FLUID and a word
        named = resolver.project_named(" ".join(toks[i:j]), by_name=True) if j > i + 1 else None
        if named:
            projects = [p for p in projects if p == named or p.lower() not in words[i:j]]
            projects += [named] if named not in projects else []
            used.update(range(i, j))
        elif w.upper() in projects:
            used.add(i)  # before the priorities: "critical FLUID bugs" is a priority of bugs
    period_text = _period_text(text, toks, words, kind_at, used)
    dated = window_in(period_text, today or date.today()) is not None
    # states: a status word after "did/were/got" is an event ("bugs closed in 2011"), not a state
    statuses: list[str] = []
    category: str | None = None
    for phrase in P.UNRESOLVED:
        at = _find(words, phrase)
        if at >= 0:
            category = "unresolved"
            take(phrase, at)
    happened = False
    for phrase, status in P.STATUSES:
        for at in _all(words, phrase):
            if not used.isdisjoint(range(at, at + len(phrase))):
                continue
            before = words[at - 1] if at > 0 else ""
            dated_next = (
                status in ("Closed", "Resolved", "Done")
                and dated
                and _next(words, at + len(phrase)) in P.WHEN_WORDS
            )
            if (
                at > 1
                and toks[at - 1][:1].isupper()
                and before not in P.NOT_NAMES
                and not dated_next
                and (at + len(phrase)) not in kind_at  # "Fluid Infusion closed tasks": a state
            ):
                continue  # "did Marcus open": a verb after a name, not a state
            take(phrase, at)
            if status == "merged" and "pull" in kinds:
                statuses.append("merged")
                happened = happened or before in P.HAPPENED
            elif before in P.HAPPENED or (
                # "bugs closed in 2011", "closed in 2024": what happened, not a state
                status in ("Closed", "Resolved", "Done")
                and (_after_kind(words, at) or (dated and _next(words, at + len(phrase)) in P.WHEN_WORDS))
            ):
                happened = True
            elif status != "merged":
                known = resolver.value("status", status)
                statuses.append(known or status)
    # priorities: "critical bugs", "priority Major", "major priority"
    priorities: list[str] = []
    for i, w in enumerate(words):
        if w in P.PRIORITIES and i not in used:
            nxt = words[i + 1] if i + 1 < len(words) else ""
            prev = words[i - 1] if i else ""
            typed = (i + 1) in used and w not in ("top", "high", "low")  # "critical bugs", not "top bugs"
            if nxt in ("priority", "prio") or prev in ("priority", "prio") or typed:
                meant = P.PRIORITIES[w]
                priorities += (
                    [resolver.value("priority", v) or v for v in meant] if len(meant) == 1 else meant
                )
                used.add(i)
    # versions: "fix version 2026.10", "in 1.4", "the Infusion 1.5 release" (their words are used)
    versions = _versions(text, resolver)
    for v in versions:
        for part in v.lower().split():
            for i, w in enumerate(words):
                if w in part.split(".") or w == part:
                    used.add(i)
                    for phrase in P.VERSION_BEFORE:
                        n = len(phrase)
                        if tuple(words[i - n : i]) == phrase:
                            used.update(range(i - n, i))
    # the period, and the event it dates (read from the words no other slot took)
    window = window_in(period_text, today or date.today())
    period = None
    if window is not None:
        event = _event([w for i, w in enumerate(words) if i not in used], kinds, happened)
        period = Period(start=window.start, end=window.end, label=window.label, event=event)
    elif happened and category is None and not statuses:
        category = "resolved"
    # scope
    spaces = [v for lk in parsed.lookups.lookups for v in lk.filters.get("space", ())]
    repos = [v for lk in parsed.lookups.lookups for v in lk.filters.get("repository", ())]
    for issue_key in parsed.issue_keys:  # "who is assigned to WEB-6": a document, not a name
        parts = tuple(issue_key.lower().split("-"))
        for at in _all(words, parts):
            used.update(range(at, at + len(parts)))
    # people and project names: runs of capitalised words
    people: list[Person] = []
    for start, end in _name_runs(toks, words, used):
        said = " ".join(toks[start:end])
        # a lower-case name guessed from where it stands (before "'s", opening a fragment)
        lower_guess = toks[start].islower() and (
            words[end : end + 1] == ("s",)
            or start == 0
            or words[start - 1] in P.LOWER_NAME_AFTER
            or (start - 1) in kind_at
            or words[start - 1] in P.ANY_DOCUMENTS
        )
        key = resolver.project_named(said, by_name=setlike)  # "Fluid Infusion bugs", "Decapod"
        if key and " " in said:
            # "Fluid Engage bugs": ENGAGE, not also FLUID (a word of its name that is another key)
            projects = [p for p in projects if p == key or p.lower() not in words_of(said)]
        if key:
            if key not in projects:
                projects.append(key)
            used.update(range(start, end))
            continue
        role = _role(words, start, end, kinds)
        if role is not None and end in used and words[end] in P.ROLE_AFTER and _no_role_before(words, start):
            role = "assignee"  # "justin obara closed bugs": the word after the name is the bugs' state
        if role is None and end in used and _no_role_before(words, start) and (end in kind_at or setlike):
            role = "assignee"  # "Justin Obara open bugs", "jonathan hung reopened new features"
        if role is None and not setlike:
            continue  # a capitalised topic of a search ("How do we configure Kafka?"): no lookup
        found = resolver.people(said)
        if not found and lower_guess:
            continue  # "the payments team's bugs": lower-case words before "'s" are a name only if known
        if not found and role is None and not (start and words[start - 1] in P.SUBJECT_AUXILIARIES):
            continue  # a capitalised topic ("Apple Pay"), not a person; the subject of "did … update"
            # is one, known to the reader's store or not (then reported, never dropped)
        if not found and shape == "search":
            continue  # "What happens when Meridian has a window?": no one the store knows, a topic
        if (
            not found
            and words[end : end + 1] == ("s",)
            and not kinds
            and not types
            and _no_role_before(words, start)
        ):
            continue  # "Meridian's charges API": a possessive of no one the store knows, before no work
        used.update(range(start, end))
        person_role: Role = role or "involved"
        if len(found) == 1:
            people.append(Person(said=said, role=person_role, resolved=found[0]))
        elif found:
            people.append(Person(said=said, role=person_role, candidates=tuple(found)))
        else:
            people.append(Person(said=said, role=person_role))
    # the asker: "assigned to me", "my open bugs", "what did I work on", "issues I reported" — the
    # signed-in person as the store names them; unknown, they are reported, never dropped
    for i in range(len(words)):
        asked_role = None if i in used else _asker_role(words, i, kinds, kind_at, shape)
        if asked_role is None:
            continue
        used.update(_asker_words(words, i))
        name = resolver.asker()
        found = resolver.people(name) if name else []
        exact = [f for f in found if f.lower() == name.lower()]
        people.append(
            Person(
                said=name,
                role=asked_role,
                resolved=(exact or found)[0] if len(exact) == 1 or len(found) == 1 else None,
                candidates=tuple(found) if len(found) > 1 and len(exact) != 1 else (),
                asker=True,
            )
        )
        break
    # order and limit
    order = None
    limit = None
    for i, w in enumerate(words):
        if w in P.ORDER and i not in used and (i + 1 < len(words)):
            order = P.ORDER[w]
            if words[i + 1].isdigit() and len(words[i + 1]) <= 3:
                limit = int(words[i + 1])
            break
    rank_by: Role | None = None
    if shape == "rank":
        order = "most"
        verbs = [
            P.ROLE_AFTER[w]
            for w in words
            if w in P.ROLE_AFTER and w not in ("s", "have", "has", "get", "got")
        ]
        rank_by = cast(Role, verbs[0] if verbs else "assignee")
        if (
            rank_by in ("reporter", "assignee")
            and set(kinds) & set(P.AUTHORED_KINDS)
            and "issue" not in kinds
        ):
            rank_by = "author"
    documents = tuple(parsed.issue_keys) + tuple(
        lk.title_contains for lk in parsed.lookups.lookups if lk.title_contains
    )
    if shape == "compare":
        documents += _compared_titles(toks, words, parsed, resolver)
    topic = " ".join(w for i, w in enumerate(words) if i not in used and w not in P.STOP and not w.isdigit())
    glue = [w for w in topic.split() if w not in P.CONDITION_GLUE]  # "filed", "priority", "items"
    if (
        shape == "search"
        and (kinds or people or any(w in P.ANY_DOCUMENTS for w in words))
        and not glue
        and (people or statuses or category or projects or priorities or versions or period)
        and all(p.role != "mover" for p in people)  # "issues closed by Priya": read off their history
    ):
        shape = "list"  # a fragment of conditions: "open bugs for Marcus Chen in WEB", "my open issues"
    said_states = [
        s
        for i in range(len(words))
        for phrase, s in P.STATE_WORDS
        if tuple(words[i : i + len(phrase)]) == phrase
    ]
    return Frame(
        text=text,
        shape=shape,
        documents=documents,
        people=tuple(people),
        period=period,
        scope=Scope(projects=tuple(projects), spaces=tuple(spaces), repositories=tuple(repos)),
        issue_types=tuple(types),
        kinds=tuple(kinds),
        statuses=tuple(dict.fromkeys(statuses)),
        category=category,
        priorities=tuple(dict.fromkeys(priorities)),
        versions=tuple(versions),
        order=order,
        rank_by=rank_by,
        limit=limit,
        topic=topic,
        statement=_statement(text, words, shape),
        forms=forms_of(_FORMS, tokenize(text), text),
        state_words=tuple(dict.fromkeys(said_states)),
        field_words=tuple(sorted(field_words(text))),
        any_documents=any_documents,
        unread=_unread(text, words, used, period is not None, bool(versions)),
    )


_FORMS = compile_table(P.FORMS, P.FORM_MACROS)


def remembers(words: Sequence[str], text: str) -> bool:
    """ "Remember that …", "Note that …": a fact to store (a question about memory is not)."""
    if text.rstrip().endswith("?"):
        return False
    if any(tuple(words[: len(o)]) == o for o in P.REMEMBER_OPENINGS):
        return not any(tuple(words[:2]) == p for p in P.NOT_A_STATEMENT)
    # "Actually, the payments freeze starts on 18 December": told, when the rest says something
    opening = next((o for o in P.TELLING_OPENINGS if tuple(words[: len(o)]) == o), None)
    rest = words[len(opening) :] if opening else ()
    return (
        len(rest) >= 4
        and rest[0] not in P.QUESTION_OPENERS
        and not indirect(rest)
        and any(w in P.STATEMENT_VERBS for w in rest[1:])
    )


def recalls(words: Sequence[str]) -> bool:
    """ "what did I ask about webhooks?", "what do you remember about …?"."""
    return any(_find(words, p) >= 0 for p in P.RECALL)


def _shape(words: Sequence[str], parsed: ParsedQuestion) -> Shape:
    if remembers(words, parsed.text):
        return "remember"
    if recalls(words):
        return "recall"
    for phrase, shape in P.SHAPES:
        if _find(words, phrase) >= 0:
            if shape in ("list", "who", "when") and parsed.issue_keys:
                return "lookup" if shape == "list" else shape  # type: ignore[return-value]
            return shape  # type: ignore[return-value]
    return "lookup" if parsed.issue_keys else "search"


def _unread(text: str, words: Sequence[str], used: set[int], dated: bool, versioned: bool) -> tuple[str, ...]:
    """The words that say a condition but were read as none ("major" with no noun after it, a
    year or a month when no period was read, "in 1.5" when no version is known by it): the
    answer says it could not apply them."""
    out: list[str] = []
    for i, w in enumerate(words):
        if i in used:
            continue
        if w in P.PRIORITIES and w in P.SAYS_A_CONDITION:
            out.append(w)
        elif not dated and (
            w in P.SAYS_A_CONDITION or (len(w) == 4 and w.isdigit() and w[:2] in ("19", "20"))
        ):
            out.append(w)
    raw = [t.strip("?.,!;:()\"'").lower() for t in text.split()]
    for i, t in enumerate(raw):
        version = any(c.isdigit() for c in t) and "." in t.strip(".")
        if version and not versioned and i and (raw[i - 1],) in P.VERSION_BEFORE:
            out.append(t)
    return tuple(dict.fromkeys(out))


def _period_text(
    text: str, toks: Sequence[str], words: Sequence[str], kind_at: set[int], used: set[int]
) -> str:
    """The question as the time parser reads it: "from 2012" with no end is of 2012 ("critical
    FLUID bugs from 2012"), and so is a year said as an adjective — after a possessive, before the
    counted noun or a project ("Colin Clark's 2016 bugs", "2011 FLUID bugs")."""
    out = list(toks)
    changed = False
    for i, w in enumerate(words):
        if not (len(w) == 4 and w.isdigit() and w[:2] in ("19", "20")):
            continue
        prev, nxt = (words[i - 1] if i else ""), _next(words, i + 1)
        if prev in P.FROM_PERIOD and nxt not in P.RANGE_WORDS:
            out[i - 1] = "in"
            changed = True
        elif prev in ("", "s") or (i + 1) in kind_at or (i + 1) in used:
            out[i] = f"in {toks[i]}"
            changed = True
    return " ".join(out) if changed else text


def _next(words: Sequence[str], at: int) -> str:
    return words[at] if at < len(words) else ""


def _after_kind(words: Sequence[str], at: int) -> bool:
    """ "bugs closed in 2011": a state word right after the counted noun is what happened."""
    nouns = {w for phrase, _ in (*P.KINDS, *P.ISSUE_TYPES) for w in phrase}
    return at > 0 and words[at - 1] in nouns


def _event(words: Sequence[str], kinds: Sequence[str], happened: bool) -> str:
    if happened:
        return "resolved"
    weak = ("did", "doing", "working", "get", "got")
    strong = [P.EVENTS[w] for w in words if w in P.EVENTS and w not in weak]
    if strong:
        return strong[0]
    if any(w in ("working", "doing") for w in words) or ("work" in words):
        return "updated"
    if any(w in ("get", "got") for w in words):
        return "created"
    return "created" if (set(kinds) & {"issue", "pull"} or not kinds) else "updated"


def _name_runs(toks: Sequence[str], words: Sequence[str], used: set[int]) -> list[tuple[int, int]]:
    """Spans of up to three capitalised words that may name someone (not the question's first
    word, not a month, a status, a type, a project key)."""
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        ok = (
            i not in used
            and t[:1].isupper()
            and not t.isupper()
            and words[i] not in P.NOT_NAMES
            and words[i] not in P.PRONOUNS
            and not any(c.isdigit() for c in t)
        )
        if not ok:
            i += 1
            continue
        j = i + 1
        while (
            j < len(toks)
            and j - i < 4
            and toks[j][:1].isupper()
            # "Michelle D'Souza" is read as Michelle, D, Souza: a lone capital inside a name
            and (
                not toks[j].isupper()
                # and a last initial before a possessive or at the end: "Blake E's closed
                # improvements", "tasks assigned to Blake E"
                or (
                    len(toks[j]) == 1
                    and (j + 1 == len(toks) or toks[j + 1][:1].isupper() or words[j + 1] == "s")
                )
            )
            and words[j] not in P.NOT_NAMES
            and j not in used
        ):
            j += 1
        runs.append((i, j))
        i = j
    # a lower-case name between "did" and a verb of a role: "how many issues did heidi valles report"
    for k, w in enumerate(words):
        if w not in ("did", "does", "has", "have") or k + 2 >= len(words):
            continue
        for end in (k + 2, k + 3):
            between = range(k + 1, end)
            if (
                end < len(words)
                and words[end] in P.ROLE_AFTER
                and all(words[b] not in P.STOP and b not in used and words[b].isalpha() for b in between)
                and not any(s <= k + 1 < e for s, e in runs)
            ):
                runs.append((k + 1, end))
                break
    # a lower-case name before a possessive: "justin obara's open bugs" (kept only when the store
    # knows it)
    for k, w in enumerate(words):
        if w != "s" or k < 1 or any(s <= k - 1 < e for s, e in runs):
            continue
        start = _lower_run_before(toks, words, used, k)
        if start < k:
            runs.append((start, k))
    # a lower-case name opening a fragment, before a state or the counted noun: "justin obara
    # closed bugs" (kept only when the store knows it)
    k = 0
    while k < min(3, len(words)) and k not in used and toks[k].isalpha() and toks[k].islower():
        if words[k] in P.STOP:
            break
        k += 1
    if k >= 2 and k in used and not any(s < k for s, _ in runs):
        runs.append((0, k))
    # a lower-case name after the counted noun, before a role's verb: "items heidi valles logged
    # against 1.5", "bugs justin filed" (kept only when the store knows it)
    for k, w in enumerate(words):
        if w not in P.ROLE_AFTER or w == "s" or k < 2:
            continue
        start = _lower_run_before(toks, words, used, k)
        if (
            start < k
            and start > 0
            and words[start - 1] in P.COUNTED_NOUNS
            and not any(s <= start < e for s, e in runs)
        ):
            runs.append((start, k))
    # a lower-case name after a role phrase: "assigned to marcus", "bugs from heidi valles" (after
    # a one-word role phrase, kept only when the store knows it)
    for phrase, _ in P.ROLE_BEFORE:
        if len(phrase) < 2 and phrase[0] not in P.LOWER_NAME_AFTER:
            continue
        for at in _all(words, phrase):
            k = at + len(phrase)
            if (
                k < len(words)
                and k not in used
                and words[k] not in P.STOP
                and words[k][:1].isalpha()  # "bugs from 2012": a year, not a person
                and words[k] not in P.TIME_NAMES
                and not any(s <= k < e for s, e in runs)
            ):
                end = k + 1
                if end < len(words) and words[end] not in P.STOP and words[end] not in P.ROLE_AFTER:
                    end += 1
                    # "reported by michelle d'souza": a lone letter is an initial, the name goes on
                    if len(words[end - 1]) == 1 and end < len(words) and words[end] not in P.STOP:
                        end += 1
                runs.append((k, end))
    return runs


def _asker_role(
    words: Sequence[str], i: int, kinds: Sequence[str], kind_at: set[int], shape: str
) -> Role | None:
    """The role of the asker said by the first-person word at ``i``, or None when it does not name
    the asker as a person of the documents asked for ("how do I file a bug", "show me", "tell me"):
    "my" before a kind ("my open bugs": assigned to them, or written for commits, pull requests and
    pages), "me" after a role phrase ("assigned to me", "reported by me"), "I" as the subject of a
    role's verb in a question about a set ("which issues did I report", "bugs I filed")."""
    w = words[i]
    authored = bool(set(kinds) & set(P.AUTHORED_KINDS)) and "issue" not in kinds
    if w == "my":
        ahead = range(i + 1, min(i + 4, len(words)))
        if any(k in kind_at for k in ahead) and not any(words[k] in P.NOT_MY_OWN for k in ahead):
            return "author" if authored else "assignee"
        return None
    if w == "me":
        for phrase, _said_role in P.ROLE_BEFORE:
            n = len(phrase)
            if i >= n and tuple(words[i - n : i]) == phrase:
                if phrase in (("for",), ("by",)) and not kinds:
                    return None  # "what is best for me", "is this OK by me"
                return _role(words, i, i + 1, kinds)
        return None
    if w != "i":
        return None
    before = words[i - 1] if i else ""
    if (i - 1) not in kind_at and (before not in P.ASKER_AUXILIARIES or shape not in P.ASKER_SHAPES):
        return None  # "bugs I filed" (a kind before "I"), "which issues did I report" (a set asked)
    after = words[i + 1] if i + 1 < len(words) else ""
    if after not in P.ROLE_AFTER or after == "s":
        return None
    return _role(words, i, i + 1, kinds)


def _asker_words(words: Sequence[str], i: int) -> range:
    """The words that say the asker and their role: "assigned to me", "I reported", "my"."""
    if words[i] == "me":
        for phrase, _ in P.ROLE_BEFORE:
            if i >= len(phrase) and tuple(words[i - len(phrase) : i]) == phrase:
                return range(i - len(phrase), i + 1)
    if words[i] == "i" and i + 1 < len(words) and words[i + 1] in P.ROLE_AFTER:
        return range(i, i + 2 + (i + 2 < len(words) and words[i + 2] in P.PARTICLES))
    return range(i, i + 1)


def _lower_run_before(toks: Sequence[str], words: Sequence[str], used: set[int], k: int) -> int:
    """Where a run of up to three lower-case words right before ``k`` starts (``k`` when none):
    a name written in lower case ("justin obara's", "bugs heidi valles logged")."""
    start = k
    while (
        start > 0
        and k - start < 3
        and (start - 1) not in used
        and toks[start - 1].islower()
        and words[start - 1].isalpha()
        and words[start - 1] not in P.STOP
    ):
        start -= 1
    return start


def _no_role_before(words: Sequence[str], start: int) -> bool:
    """Whether no role phrase ("assigned to", "filed by" …) comes right before ``start``."""
    return not any(
        start >= len(phrase) and tuple(words[start - len(phrase) : start]) == phrase
        for phrase, _ in P.ROLE_BEFORE
    )


def _role(words: Sequence[str], start: int, end: int, kinds: Sequence[str]) -> Role | None:
    authored = bool(set(kinds) & set(P.AUTHORED_KINDS)) and "issue" not in kinds
    for phrase, role in P.ROLE_BEFORE:
        n = len(phrase)
        if start >= n and tuple(words[start - n : start]) == phrase:
            if role == "reporter" and authored:
                return "author"
            if phrase == ("for",) and authored:
                return "author"
            return role  # type: ignore[return-value]
    after = words[end : end + 2]
    for w in after:
        if w in P.ROLE_AFTER:
            role = P.ROLE_AFTER[w]
            if authored and role in ("reporter", "assignee"):
                return "author"
            return role  # type: ignore[return-value]
        # "… that Marcus Chen is assigned to": the verb's auxiliary before it
        if w not in ("been", "ever", "already", "recently", "just", "also", "is", "was", "are", "were"):
            break
    return None


def _versions(text: str, resolver: Resolver) -> list[str]:
    raw = [t.strip("?.,!;:()\"'") for t in text.split()]
    out: list[str] = []
    for i, t in enumerate(raw):
        if not any(c.isdigit() for c in t) or "." not in t.strip("."):
            continue
        for cand in ([f"{raw[i - 1]} {t}"] if i else []) + [t, t.lstrip("vV")]:
            known = resolver.value("fix_version", cand)
            if known:
                out.append(known)
                break
    return list(dict.fromkeys(out))


def _statement(text: str, words: Sequence[str], shape: str) -> bool:
    """ "The payments freeze starts on 15 December." — a sentence saying something, not asking (a
    keyword query, "webhook retries", is not one: it has no verb)."""
    first = next((i for i, w in enumerate(words) if w not in P.GREETINGS), len(words))
    if shape == "remember" or "?" in text or len(words) < 5 or first >= len(words):
        return False
    if words[first] in P.QUESTION_OPENERS or indirect(words):  # "I was wondering how …" asks
        return False
    return any(w in P.STATEMENT_VERBS for w in words[first + 1 :])


def _compared_titles(
    toks: Sequence[str], words: Sequence[str], parsed: ParsedQuestion, resolver: Resolver
) -> tuple[str, ...]:
    """The sides of "compare A with B" / "difference between A and B" / "A vs B" that name a
    document by (part of) its title rather than an identifier, resolved to that title."""
    start = next((i + len(p) for p, _ in P.SHAPES if _ == "compare" for i in [_find(words, p)] if i >= 0), 0)
    cut = next((i for i in range(start, len(words)) if words[i] in P.COMPARE_JOINERS), -1)
    if cut < 0:
        return ()
    named = {
        w.lower()
        for lk in parsed.lookups.lookups
        for vs in lk.filters.values()
        for v in vs
        for w in v.split()
    }
    out: list[str] = []
    for lo, hi in ((start, cut), (cut + 1, len(words))):
        side = [toks[i] for i in range(lo, hi) if words[i] not in P.TITLE_NOISE]
        said = " ".join(side)
        if not side or said.lower() in named or any(w.lower() in named for w in side):
            continue
        title = resolver.title(said)
        if title:
            out.append(title)
    return tuple(out)
