"""What a memory is about: a *subject* (a noun phrase) and an *attribute* (what it says of it),
derived from the sentence deterministically, so that a newer memory with the same pair supersedes
the older one and leaves every other fact about the subject alone.

    "the payments freeze starts on 15 December"   → ("payments freeze", "start")
    "The payments freeze ends on 5 January"        → ("payments freeze", "end")
    "we no longer use Jenkins"                     → ("we", "use jenkins")
    "the build needs Node 20"                      → ("build", "need node")
    "CI is GitHub Actions"                         → ("ci", "be")
    "the owner of the payments freeze is Alice"    → ("payments freeze", "owner")
    "the freeze's owner is Alice"                  → ("freeze", "owner")

The rules: a lead-in ("remember that", "for the team") is dropped; "the X of Y is …" and "Y's X is
…" name the attribute X of Y; otherwise the subject is the words before the verb (determiners
dropped) and the attribute is the verb's stem — with the head word of its object when the verb
takes one ("use jenkins", "need node": a team uses many tools; "starts on …" has no object).
Negation and auxiliaries do not change the pair ("no longer uses Jenkins" supersedes "uses
Jenkins"). A sentence the rules cannot read gets no pair: it supersedes nothing (a wrong pair
would invalidate a true fact; the API and MCP accept an explicit subject and attribute).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import Stemmer

_stem = Stemmer.Stemmer("english").stemWord

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+#/_-]*(?:'s)?")
LEADS = (
    "please remember that",
    "please remember",
    "remember that",
    "remember",
    "note that",
    "please note that",
    "for the team",
    "for the record",
    "fyi",
    "team memory",
    "keep in mind that",
    "don't forget that",
    "just so you know",
    "actually",
    "correction",
    "heads up",
)
DETERMINERS = frozenset("the a an our my your their his her its this that these those we've".split())
PRONOUNS = frozenset("we i you they he she it".split())
AUX = frozenset(
    "will shall would should can could may might must does do did not no longer now also always "
    "still only never already currently usually actually really just n't".split()
)
COPULAS = frozenset("is are was were be been being 's".split())
FOLLOWERS = frozenset(
    "on at in from to by until till before after since during for with into onto over under about "
    "the a an every each this that next last our their".split()
)
KNOWN_VERBS = frozenset(
    _stem(v)
    for v in (
        "start begin end finish close open run use need require move live own lead handle manage "
        "deploy support replace depend happen ship release take last cost belong go come break fail "
        "work mean prefer want like hate love host store keep call send build test block expire "
        "renew change switch migrate target default point contain include cover apply show"
    ).split()
)
COPULA_ATTRIBUTE = "be"
NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve twenty hundred".split()
)
# verbs whose object follows a preposition and names one of several things ("depends on Kafka")
PREPOSITIONAL = frozenset(_stem(v) for v in "depend rely integrate connect talk".split())


FUNCTION_WORDS = frozenset(
    "the a an and or but of to in on at for with from by is are was were be been being it this that "
    "these those we i you they he she our my your their its as so if then than not no do does did "
    "have has had will would can could should may might must about into over just also there here "
    "what which who whom when where why how me us them".split()
)


def content_words(text: str) -> list[str]:
    """The stems of ``text``'s words less function words ("The freeze starts on 15 December" →
    freez, start, 15, decemb): what a fact shares with what someone said."""
    out = []
    for w in _WORD.findall(text):
        low = w.lower().removesuffix("'s").rstrip(".")
        if low and low not in FUNCTION_WORDS:
            out.append(_stem(low))
    return out


@dataclass(frozen=True)
class Topic:
    subject: str
    attribute: str

    @property
    def known(self) -> bool:
        return bool(self.subject and self.attribute)


NONE = Topic("", "")


def strip_lead(text: str) -> str:
    """The sentence without its lead-in ("Remember that …", "For the team: …")."""
    out = text.strip()
    changed = True
    while changed:
        changed = False
        low = out.lower()
        for lead in LEADS:
            if low.startswith(lead) and (len(out) == len(lead) or not out[len(lead)].isalnum()):
                out = out[len(lead) :].lstrip(" ,:;-–—")
                changed = True
                break
    return out.strip()


def normalise_subject(words: list[str]) -> str:
    kept = [w for w in words if w]
    while kept and kept[0] in DETERMINERS:
        kept = kept[1:]
    return " ".join(w.removesuffix("'s") for w in kept).strip()


def topic_of(text: str) -> Topic:
    """The (subject, attribute) of a memory's sentence, or ``NONE``."""
    body = strip_lead(text)
    body = re.split(r"[;\n]|\.\s", body, maxsplit=1)[0]  # the first clause says what it is about
    words = [w.lower() for w in _WORD.findall(body)]
    if len(words) < 2:
        return NONE
    # "the owner of the payments freeze is Alice" → (payments freeze, owner)
    for i, w in enumerate(words):
        if w in COPULAS and i >= 3 and "of" in words[1:i]:
            j = words.index("of", 1)
            attr, subject = normalise_subject(words[:j]), normalise_subject(words[j + 1 : i])
            if attr and subject:
                return Topic(subject, " ".join(_stem(a) for a in attr.split()))
            break
    # "the freeze's owner is Alice" → (freeze, owner)
    for i, w in enumerate(words):
        if w in COPULAS:
            if i >= 2 and any(x.endswith("'s") for x in words[:i]):
                k = next(n for n, x in enumerate(words[:i]) if x.endswith("'s"))
                subject, attr = normalise_subject(words[: k + 1]), normalise_subject(words[k + 1 : i])
                if subject and attr:
                    return Topic(subject, " ".join(_stem(a) for a in attr.split()))
            break
    verb = _verb_position(words)
    if verb is None:
        return NONE
    subject_words = [w for w in words[:verb] if w not in AUX]
    subject = normalise_subject(subject_words)
    if not subject:
        return NONE
    v = words[verb]
    if v in COPULAS:
        after = [w for w in words[verb + 1 :] if w not in AUX]
        if after and (after[0].endswith("ed") or after[0].endswith("en")) and len(after[0]) > 4:
            return Topic(subject, _stem(after[0]))  # "is owned by …", "was postponed"
        return Topic(subject, COPULA_ATTRIBUTE)
    attribute = _stem(v)
    rest = [w for w in words[verb + 1 :] if w not in AUX]
    if attribute in PREPOSITIONAL and rest and rest[0] in FOLLOWERS:
        rest = rest[1:]  # "depends on Kafka": the object follows the preposition
    while rest and rest[0] in DETERMINERS:
        rest = rest[1:]
    if rest and rest[0] not in FOLLOWERS and not _numeric(rest[0]):
        phrase: list[str] = []
        for w in rest:
            if w in FOLLOWERS:
                break
            phrase.append(w)
        head = [w for w in phrase if not _numeric(w)]
        attribute = f"{attribute} {_stem(head[-1])}"  # the noun phrase's head: "the old logo" → logo
    return Topic(subject, attribute)


def _numeric(word: str) -> bool:
    return word[:1].isdigit() or word in NUMBER_WORDS


def _verb_position(words: list[str]) -> int | None:
    """Where the verb is: after a pronoun the next word that is no auxiliary; else the first
    copula or inflected known verb; else a base-form known verb or an ``-s``/``-ed`` word that
    a preposition, determiner or number follows."""
    start = 1
    if words[0] in PRONOUNS:
        for i in range(1, len(words)):
            if words[i] not in AUX:
                return i
        return None
    first_content = 1 if words[0] in DETERMINERS else 0
    start = first_content + 1
    for i in range(start, len(words)):
        w = words[i]
        if w in COPULAS or w in AUX and w in ("will", "does", "did", "do"):
            if w in COPULAS:
                return i
            continue
        s = _stem(w)
        if s in KNOWN_VERBS and s != w:
            return i
    for i in range(start, len(words)):
        w = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else ""
        follows = nxt in FOLLOWERS or (_numeric(nxt) if nxt else True)
        if _stem(w) in KNOWN_VERBS and follows:
            return i
        if (w.endswith("s") or w.endswith("ed")) and not w.endswith("ss") and follows:
            return i
    # after an auxiliary ("the build will need Node 20"): the word after it
    for i in range(start, len(words) - 1):
        if (
            words[i] in ("will", "does", "did", "do", "must", "should", "can", "may")
            and words[i + 1] not in AUX
        ):
            return i + 1
    return None
