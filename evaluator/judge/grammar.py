"""A grammar for criteria sentences, where the templates of `criteria.py` stop: every word must be
accounted for, or the sentence is refused and the word that stopped it is named.

This first part parses consultation sentences ("the agent read X", "consultation of at least one
product reference file under `A` or `B`", "`X` was never opened"): an optional evidence verb
("shows", "includes"), a read predicate from a verb lexicon (verb, noun "consultation of", or
passive "was read"), and its objects: a quantifier, words that do not change the meaning
(`NEUTRAL`: a "product" reference file, the "relevant" file), a scope ("under", "in"), and
backticked literals joined by "or"/"and". A word outside the lexicon (an "other" file, the "newest"
file) could change the meaning: it is refused, never skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from evaluator.contract.models import AllOfCheck, AnyOfCheck, Check, FileReadCheck, NotCheck

# Words that say nothing a backticked literal does not already say exactly.
NEUTRAL = frozenset(
    {
        "product",
        "relevant",
        "local",
        "appropriate",
        "corresponding",
        "bundled",
        "shipped",
        "provided",
        "skill",
        "skill's",
        "project",
        "project's",
        "repository",
        "repo",
        "markdown",
        "text",
    }
)
# What a file is called; as modifiers ("reference file") or heads ("the reference").
KINDS = frozenset(
    {
        "file",
        "files",
        "reference",
        "references",
        "document",
        "documents",
        "doc",
        "docs",
        "documentation",
        "guide",
        "guides",
        "instructions",
        "page",
        "pages",
    }
)
SHOW_VERBS = frozenset(
    {"shows", "show", "showed", "includes", "include", "contains", "contain", "records", "has"}
)
READ_VERBS = frozenset(
    {
        "read",
        "reads",
        "consult",
        "consults",
        "consulted",
        "open",
        "opens",
        "opened",
        "inspect",
        "inspects",
        "inspected",
        "load",
        "loads",
        "loaded",
        "view",
        "views",
        "viewed",
        "review",
        "reviews",
        "reviewed",
        "examine",
        "examines",
        "examined",
    }
)
READ_PARTICIPLES = frozenset(
    {"read", "consulted", "opened", "inspected", "loaded", "viewed", "reviewed", "examined"}
)
READ_NOUNS = frozenset(
    {
        "consultation",
        "consultations",
        "read",
        "reads",
        "reading",
        "inspection",
        "inspections",
        "review",
    }
)
BE = frozenset({"was", "were", "is", "are"})
SCOPES = frozenset({"under", "in", "inside", "within", "from"})
# Quantifiers over the objects: what a list of literals then means ("any": one is enough;
# "either" needs an "or" list).
QUANTIFIERS: tuple[tuple[tuple[str, ...], str | None], ...] = (
    (("at", "least", "one", "of", "the"), "any"),
    (("at", "least", "one", "of"), "any"),
    (("at", "least", "one"), "any"),
    (("one", "of", "the"), "any"),
    (("one", "of"), "any"),
    (("any", "of", "the"), "any"),
    (("either",), "either"),
    (("any",), "any"),
    (("both",), "all"),
    (("all", "of", "the"), "all"),
    (("a",), None),
    (("an",), None),
    (("the",), None),
)
_TOKEN = re.compile(r"\u27e8\d+\u27e9|[^\s,/]+|,|/")
_SLOT = re.compile(r"\u27e8(\d+)\u27e9")


@dataclass
class Parse:
    """A parsed sentence: its tree and check, or the word that stopped the parse."""

    tree: list[str] = field(default_factory=list)
    check: Check | None = None
    refused_at: str | None = None

    @property
    def text(self) -> str:
        return " ".join(self.tree)


class _Refused(Exception):
    def __init__(self, word: str) -> None:
        super().__init__(word)
        self.word = word


class _Tokens:
    def __init__(self, text: str) -> None:
        self.items = _TOKEN.findall(text)
        self.at = 0

    def peek(self, ahead: int = 0) -> str | None:
        index = self.at + ahead
        return self.items[index] if index < len(self.items) else None

    def take(self, *words: str) -> bool:
        """Consumes exactly this word sequence when it is next."""
        if tuple(self.items[self.at : self.at + len(words)]) == words:
            self.at += len(words)
            return True
        return False

    def take_any(self, words: frozenset[str]) -> str | None:
        word = self.peek()
        if word is not None and word in words:
            self.at += 1
            return word
        return None

    def refuse(self) -> _Refused:
        return _Refused(self.peek() or "(end of sentence)")


def parse_consultation(text: str, literals: tuple[str, ...]) -> Parse:
    """Parses a sentence skeleton (lower-cased, literals as ⟨n⟩, lead-in and negation removed by
    `criteria._skeleton`) as a consultation claim."""
    tokens = _Tokens(text)
    parse = Parse()
    try:
        check = _sentence(tokens, parse, literals)
        if tokens.peek() is not None:
            raise tokens.refuse()
    except _Refused as refused:
        parse.refused_at = refused.word
        return parse
    parse.check = check
    return parse


def _sentence(tokens: _Tokens, parse: Parse, literals: tuple[str, ...]) -> Check:
    shown = tokens.take_any(SHOW_VERBS)
    if shown:
        parse.tree.append(f"evidence:{shown}")
        tokens.take("evidence", "of")
    tokens.take("that")
    tokens.take("the", "agent")
    if tokens.take_any(READ_VERBS):
        tokens.take("of")  # "shows reads of `X`": the noun
        parse.tree.append("read")
        return _objects(tokens, parse, literals)
    start = tokens.at
    for words, _ in ((("",), None), *QUANTIFIERS):
        tokens.at = start
        if (words == ("",) or tokens.take(*words)) and tokens.take_any(READ_NOUNS):
            if not tokens.take("of"):
                raise tokens.refuse()
            parse.tree.append("read")
            return _objects(tokens, parse, literals)
    tokens.at = start
    if shown:
        raise tokens.refuse()
    # Passive: "`X` was (never) read (by the agent)".
    check = _objects(tokens, parse, literals)
    if not tokens.take_any(BE):
        raise tokens.refuse()
    negated = tokens.take_any(frozenset({"never", "not"})) is not None
    if not tokens.take_any(READ_PARTICIPLES):
        raise tokens.refuse()
    tokens.take("by", "the", "agent")
    parse.tree.insert(0, "not read" if negated else "read")
    return NotCheck(operand=check) if negated else check


def _objects(tokens: _Tokens, parse: Parse, literals: tuple[str, ...]) -> Check:
    quantifier: str | None = None
    for words, meaning in QUANTIFIERS:
        if tokens.take(*words):
            quantifier = meaning
            parse.tree.append(f"quantifier:{' '.join(words)}")
            break
    while (word := tokens.take_any(NEUTRAL | KINDS)) is not None:
        parse.tree.append(f"{'kind' if word in KINDS else 'neutral'}:{word}")
    scope = tokens.take_any(SCOPES) is not None
    if scope:
        tokens.take("the")
        tokens.take_any(frozenset({"directory", "folder"}))
    values, joins = _literal_list(tokens)
    if tokens.take_any(frozenset({"directory", "folder"})):
        scope = True
    while tokens.take_any(KINDS):
        pass
    join = _join(joins, quantifier)
    if join is None:
        raise _Refused(" ".join(sorted(joins)) or "(list)")
    paths = [
        literals[i].rstrip("/") + "/*" if scope or literals[i].endswith("/") else literals[i]
        for i in values
    ]
    parse.tree.append(f"{join}[{', '.join(paths)}]" if len(paths) > 1 else f"file:{paths[0]}")
    checks: list[Check] = [FileReadCheck(kind="file_read", path=p) for p in paths]
    if len(checks) == 1:
        return checks[0]
    return AnyOfCheck(operands=checks) if join == "any" else AllOfCheck(operands=checks)


def _literal_list(tokens: _Tokens) -> tuple[list[int], set[str]]:
    values: list[int] = []
    joins: set[str] = set()
    while True:
        slot = _SLOT.fullmatch(tokens.peek() or "")
        if slot is None:
            raise tokens.refuse()
        tokens.at += 1
        values.append(int(slot.group(1)))
        separator = []
        while (word := tokens.peek()) in (",", "/", "or", "and"):
            assert word is not None
            separator.append(word)
            tokens.at += 1
        if not separator:
            return values, joins
        if _SLOT.fullmatch(tokens.peek() or "") is None:
            raise tokens.refuse()
        joins.update(separator)


def _join(joins: set[str], quantifier: str | None) -> str | None:
    """What a list means: "or" (or "/") any, "and" all; a quantifier that says "one is
    enough" makes "and" any too ("at least one of `A` and `B`"). Mixed lists mean nothing
    exact."""
    words = joins - {","}
    if not words:  # one literal, or a list by commas alone
        return "any" if quantifier in ("any", "either") else "all"
    if words <= {"or", "/"}:
        return None if quantifier == "all" else "any"
    if words == {"and"} and quantifier != "either":
        return "any" if quantifier == "any" else "all"
    return None
