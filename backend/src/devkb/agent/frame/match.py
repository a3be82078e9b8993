"""Word patterns: the small table-driven matcher the frame reads question forms with (spaCy's
``Matcher`` in miniature) — no regular expression. A question is split once into tokens (runs of
letters, digits and ``_``, each with its place in the text); a pattern is a sequence of token
tests written as data in :mod:`devkb.agent.frame.phrases`:

===============  ===========================================================================
``how``          the word "how" (any case)
``what|which``   one of these words
``pull_requests``  a word sequence ("pull requests") as one alternative
``<KEY>``        a project-key-shaped token as written (``PAY``, ``FLUID``; not ``PAY`` of
                 ``PAY-1``)
``<Cap>``        a capitalised token (a name's word)
``<num>``        a number; ``<ver>``: a version number ("2026.6", "v4.8.0": two to four parts)
``<any>``        any token
``!fix|version`` the next token is none of these (nothing consumed)
``( a b | c )``  a group of alternative sequences
``x?`` ``x*`` ``x+`` ``x{1,3}``  optional, any number, one or more, between 1 and 3
``x@name``       what ``x`` matched, as written in the question, is the capture ``name``
``^`` ``$``      the question's first token, past its last
``{MACRO}``      the text of a macro (a shared piece of pattern), before reading
===============  ===========================================================================

A pattern matches at the first (leftmost) place it can; its alternatives and repeats are tried
longest first, as a regular expression's greedy ones are.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Token:
    text: str  # as written
    low: str
    start: int  # its place in the question's text
    end: int


def tokenize(text: str) -> tuple[Token, ...]:
    """The question's tokens: maximal runs of letters, digits and ``_`` (as ``\\w+`` splits)."""
    out: list[Token] = []
    start = -1
    for i, c in enumerate(text + " "):
        word = c.isalnum() or c == "_"
        if word and start < 0:
            start = i
        elif not word and start >= 0:
            out.append(Token(text[start:i], text[start:i].lower(), start, i))
            start = -1
    return tuple(out)


# -- the pattern's parts -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Words:
    options: tuple[tuple[str, ...], ...]  # each a word sequence, longest first
    classes: tuple[str, ...] = ()  # token classes among the alternatives ("open|<KEY>")
    exact: bool = False  # "=nobody": as written, case and all


@dataclass(frozen=True)
class _Class:
    name: str


@dataclass(frozen=True)
class _Not:
    words: frozenset[str]


@dataclass(frozen=True)
class _Group:
    options: tuple[_Seq, ...]


@dataclass(frozen=True)
class _Item:
    atom: _Words | _Class | _Not | _Group
    least: int = 1
    most: int = 1
    name: str = ""
    lazy: bool = False  # the fewest repeats first ("+?", "*?")


@dataclass(frozen=True)
class _Seq:
    items: tuple[_Item, ...]
    first: bool = False  # ^
    last: bool = False  # $


_CLASSES = frozenset({"KEY", "Cap", "num", "ver", "any", "w", "word", "part"})


def _lex(source: str) -> list[str]:
    """The pattern's tokens: words, "(", ")" with its quantifier and capture glued on (")?@x")."""
    out: list[str] = []
    cur = ""
    glued = False  # right after ")": what follows belongs to it
    for c in source:
        if c in "()" or c.isspace():
            if cur:
                out.append(cur)
            cur, glued = "", c == ")"
            if c in "()":
                out.append(c)
        elif glued:
            out[-1] += c
        else:
            cur += c
    if cur:
        out.append(cur)
    return out


def _suffix(tok: str) -> tuple[str, int, int, str, bool]:
    """``tok`` without its quantifier and capture: (the atom, least, most, capture name, lazy)."""
    name = ""
    if "@" in tok:
        tok, name = tok.split("@", 1)
    lazy = len(tok) > 2 and tok.endswith("?") and tok[-2] in "*+}"
    if lazy:
        tok = tok[:-1]
    least, most = 1, 1
    if tok.endswith("?") and len(tok) > 1:
        tok, least, most = tok[:-1], 0, 1
    elif tok.endswith("*") and len(tok) > 1:
        tok, least, most = tok[:-1], 0, 99
    elif tok.endswith("+") and len(tok) > 1:
        tok, least, most = tok[:-1], 1, 99
    elif tok.endswith("}") and "{" in tok:
        tok, _, span = tok[:-1].rpartition("{")
        lo, _, hi = span.partition(",")
        least, most = int(lo), int(hi or lo)
    return tok, least, most, name, lazy


def _atom(tok: str) -> _Words | _Class | _Not:
    if tok.startswith("<") and tok.endswith(">") and "|" not in tok:
        if tok[1:-1] not in _CLASSES:
            raise ValueError(f"unknown token class {tok}")
        return _Class(tok[1:-1])
    if tok.startswith("!"):
        return _Not(frozenset(tok[1:].lower().split("|")))
    exact = tok.startswith("=")
    alts = tok.lstrip("=").split("|")
    classes = tuple(a[1:-1] for a in alts if a.startswith("<") and a.endswith(">"))
    if set(classes) - _CLASSES:
        raise ValueError(f"unknown token class in {tok}")
    options = {tuple((o if exact else o.lower()).split("_")) for o in alts if not o.startswith("<")}
    return _Words(tuple(sorted(options, key=lambda o: (-len(o), o))), classes, exact)


def _parse(tokens: list[str], at: int, closing: bool) -> tuple[_Group, int]:
    options: list[_Seq] = []
    items: list[_Item] = []
    first = last = False
    while at < len(tokens):
        tok = tokens[at]
        if tok == "(":
            group, at = _parse(tokens, at + 1, True)
            close = tokens[at]  # ")", with its quantifier and capture
            _, least, most, name, lazy = _suffix("x" + close[1:]) if len(close) > 1 else ("", 1, 1, "", False)
            items.append(_Item(group, least, most, name, lazy))
            at += 1
            continue
        if tok.startswith(")"):
            if not closing:
                raise ValueError("a ')' without its '('")
            break
        if tok == "|":
            options.append(_Seq(tuple(items), first, last))
            items, first, last = [], False, False
        elif tok == "^":
            first = True
        elif tok == "$":
            last = True
        else:
            body, least, most, name, lazy = _suffix(tok)
            items.append(_Item(_atom(body), least, most, name, lazy))
        at += 1
    options.append(_Seq(tuple(items), first, last))
    return _Group(tuple(options)), at


@dataclass(frozen=True)
class Pattern:
    """One pattern, read from its source once."""

    source: str
    macros: Mapping[str, str] = field(default_factory=dict, compare=False)
    _group: _Group = field(init=False, repr=False, compare=False)
    # words one of which a question must hold for the pattern to match (None: no such words)
    _needs: frozenset[str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        text = self.source
        for _ in range(4):  # macros may use macros
            for k, v in self.macros.items():
                text = text.replace("{" + k + "}", v)
        group, _ = _parse(_lex(text), 0, False)
        object.__setattr__(self, "_group", group)
        object.__setattr__(self, "_needs", _needed(group))

    def search(
        self, toks: Sequence[Token], text: str, words: frozenset[str] | None = None
    ) -> dict[str, str] | None:
        """The captures of the first match in ``toks`` (of ``text``; ``words``: their lower-case
        words, when the caller has them), or None when none."""
        if self._needs is not None:
            words = words if words is not None else frozenset(t.low for t in toks)
            if self._needs.isdisjoint(words):
                return None
        for start in range(len(toks) + 1):
            for end, caps in _group(self._group, toks, text, start):
                del end
                return {k: text[toks[a].start : toks[b - 1].end] for k, (a, b) in caps.items() if b > a}
        return None


_Caps = dict[str, tuple[int, int]]


def _needed(group: _Group) -> frozenset[str] | None:
    """The first words of each alternative's first required word item: a match needs one of
    them (None when an alternative has no such item, and anything may match)."""
    needs: set[str] = set()
    for seq in group.options:
        first = next((it for it in seq.items if it.least >= 1 and not isinstance(it.atom, _Not)), None)
        if first is None:
            return None
        if isinstance(first.atom, _Words) and not first.atom.classes and not first.atom.exact:
            needs |= {o[0] for o in first.atom.options}
        elif isinstance(first.atom, _Group):
            inner = _needed(first.atom)
            if inner is None:
                return None
            needs |= inner
        else:
            return None
    return frozenset(needs)


def _group(g: _Group, toks: Sequence[Token], text: str, at: int) -> Iterator[tuple[int, _Caps]]:
    for seq in g.options:
        if seq.first and at != 0:
            continue
        for end, caps in _seq(seq.items, 0, toks, text, at):
            if seq.last and end != len(toks):
                continue
            yield end, caps


def _seq(
    items: Sequence[_Item], i: int, toks: Sequence[Token], text: str, at: int
) -> Iterator[tuple[int, _Caps]]:
    if i == len(items):
        yield at, {}
        return
    item = items[i]
    for end, caps in _repeat(item, 0, toks, text, at):
        for after, more in _seq(items, i + 1, toks, text, end):
            merged = {**caps, **more}
            if item.name:
                merged[item.name] = (at, end)
            yield after, merged


def _repeat(item: _Item, n: int, toks: Sequence[Token], text: str, at: int) -> Iterator[tuple[int, _Caps]]:
    """``item`` matched n.. times from ``at``: the most repeats first (greedy), or the fewest."""
    if item.lazy and n >= item.least:
        yield at, {}
    if n < item.most:
        for end, caps in _once(item.atom, toks, text, at):
            if end == at and n >= item.least:
                continue  # an empty repeat: no progress
            for after, more in _repeat(item, n + 1, toks, text, end):
                yield after, {**caps, **more}
    if n >= item.least and not item.lazy:
        yield at, {}


def _once(
    atom: _Words | _Class | _Not | _Group, toks: Sequence[Token], text: str, at: int
) -> Iterator[tuple[int, _Caps]]:
    if isinstance(atom, _Group):
        yield from _group(atom, toks, text, at)
    elif isinstance(atom, _Not):
        if at >= len(toks) or toks[at].low not in atom.words:
            yield at, {}
    elif isinstance(atom, _Words):
        said = [t.text if atom.exact else t.low for t in toks[at : at + 8]]
        ends = [at + len(o) for o in atom.options if tuple(said[: len(o)]) == o]
        ends += [e for e in (_class(name, toks, text, at) for name in atom.classes) if e is not None]
        for end in sorted(set(ends), reverse=True):  # each end once: "open" is a word and a <w>
            yield end, {}
    else:
        past = _class(atom.name, toks, text, at)
        if past is not None:
            yield past, {}


def _class(name: str, toks: Sequence[Token], text: str, at: int) -> int | None:
    if at >= len(toks):
        return None
    t = toks[at]
    if name == "any":
        return at + 1
    if name == "num":
        return at + 1 if t.text.isdigit() else None
    if name == "Cap":
        return at + 1 if t.text[:1].isupper() else None
    if name == "w":  # a short word or code as a regex's [A-Z][A-Z0-9]{1,9} reads it, case aside
        ok = 2 <= len(t.text) <= 10 and t.text[0].isascii() and t.text[0].isalpha() and t.text.isascii()
        return at + 1 if ok and t.text.isalnum() else None
    if name in (
        "part",
        "word",
    ):  # tokens joined by "." or "-" ("fluid-infusion", "v2.1"); a word: a letter first
        if name == "word" and not t.text[0].isalpha():
            return None
        end = at + 1
        while end < len(toks) and text[toks[end - 1].end : toks[end].start] in (".", "-"):
            end += 1
        return end
    if name == "KEY":
        ok = 2 <= len(t.text) <= 10 and t.text[0].isascii() and t.text[0].isupper()
        ok = ok and all((c.isascii() and c.isupper()) or c.isdigit() for c in t.text)
        issue_key = (
            at + 1 < len(toks) and toks[at + 1].text.isdigit() and text[t.end : toks[at + 1].start] == "-"
        )
        return at + 1 if ok and not issue_key else None
    # ver: digits (or v + digits), then one to three ".digits", nothing but a dot between
    head = t.low[1:] if t.low[:1] == "v" and t.low[1:].isdigit() else t.low
    if not head.isdigit():
        return None
    end = at + 1
    while (
        end < len(toks)
        and end - at < 4
        and toks[end].text.isdigit()
        and text[toks[end - 1].end : toks[end].start] == "."
    ):
        end += 1
    if end == at + 1:
        return None
    if text[toks[end - 1].end : toks[end - 1].end + 2].strip().startswith("%"):
        return None  # "fixed in 2.5%": a share, not a version
    return end


def forms_of(
    tables: Mapping[str, Sequence[Pattern]], toks: Sequence[Token], text: str
) -> dict[str, dict[str, str]]:
    """Each form of ``tables`` one of whose patterns matches: its first pattern's captures."""
    out: dict[str, dict[str, str]] = {}
    words = frozenset(t.low for t in toks)
    for name, patterns in tables.items():
        for p in patterns:
            caps = p.search(toks, text, words)
            if caps is not None:
                out[name] = caps
                break
    return out


def compile_table(
    rows: Mapping[str, Sequence[str]], macros: Mapping[str, str]
) -> dict[str, tuple[Pattern, ...]]:
    """Every row's pattern sources read once."""
    return {name: tuple(Pattern(s, macros) for s in sources) for name, sources in rows.items()}
