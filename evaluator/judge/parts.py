"""What the compiled sentences of an entry decide when the entry does not compile whole, or
compiles whole but is no conjunction of its criteria (`alternatives`: its description offers
another way).

The contract (upstream "Assertion Entry"): a required entry passes only when each pass criterion
holds and no fail signal is seen; a forbidden entry is observed when any of its sentences is. So
whatever the other sentences mean, a compiled pass criterion that does not hold, or a compiled
fail signal that is seen, fails a required entry, and a compiled sentence that is observed fails
a forbidden one. Nothing else is decided by a part: every part holding, or one blocked, says
nothing of the sentences that did not compile, so the entry goes on to the model judge (or is
`blocked: unclear-rule`) as a whole.

That reading needs the sentences to be a plain list of claims. Where they are not, no part
decides (each guard names its reason, which `explain` shows):

- a pass criterion that opens with a disjunction ("Or the answer explains ...",
  "Alternatively ...", "Either ...") or points at the others ("one of the above") makes the
  criteria alternatives: a compiled one that does not hold fails nothing (a fail signal still
  does); so does an entry's description with such a clause ("Reads the auth guide, or asks
  which flow the user runs", "Either ... or ...", "one of the following"): the author may have
  written the "either" there alone, over criteria that each state one way;
- a description with a permission or an exception ("... is acceptable", "unless ...") may
  excuse what a compiled part demands, as such an uncompiled sentence does;
- a sentence that did not compile and relaxes or qualifies the others ("... is acceptable",
  "unless ...", "does not need to ...", "... also satisfies it", "the agent may ...", a bare
  "instead" or "either", in a pass criterion or a forbidden entry's sentence; or any sentence
  opening with "But", "Unless", "Only if", "However") could excuse what a compiled part
  demands;
- a sentence of any role that did not compile and exempts a behaviour from failing ("... is not
  a failure", "does not count", "this signal does not apply", "is only a problem when ...")
  could undo a compiled fail signal or a forbidden entry's observation;
- a fail signal that continues the one before it ("and then ...", "while ...") makes the signal
  one claim over several sentences, seen only when all of it is;
- a fail signal that only denies an act on what a pass criterion names ("never consults
  `A`" beside "consults `A` or another auth guide") is that criterion's complement, no new
  claim: when the criterion compiled, the criterion decides; when it did not, the denial may be
  narrower than the criterion it mirrors;
- a forbidden entry with both pass criteria and fail signals: which sentences are the
  behaviour (the model judge is asked about its fail signals only)?
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evaluator.contract.models import AssertionEntry, Check
from evaluator.judge.criteria import (
    SentenceOutcome,
    compile_sentences,
    names_same,
    sentence_literals,
)
from evaluator.judge.skill_vocabulary import SkillVocabulary
from evaluator.judge.verdict import Provenance
from evaluator.vocabulary import Polarity

# A pass criterion that offers another way to satisfy the entry, not one more condition.
_ALTERNATIVE = re.compile(
    r"\s*(?P<word>or|either|alternatively|otherwise|else|instead|failing that|as an alternative)\b",
    re.I,
)
_POINTS_AT_OTHERS = re.compile(
    r"\b(?P<word>(?:at least )?(?:one|any|either|some|two) of (?:the )?"
    r"(?:above|following|these|those|criteria|preceding))\b",
    re.I,
)
# Where a description's clauses start: an alternative is often a clause of its own ("A, or B").
_CLAUSES = re.compile(r"[.;:,!?()\u2014]|\s-\s")
# A sentence that opens by qualifying what came before it.
_QUALIFIER = re.compile(
    r"\s*(?P<word>but|unless|except|only (?:if|when|where)|provided|as long as|though|although"
    r"|however|nevertheless|even so)\b",
    re.I,
)
# A fail signal that goes on from the one before it.
_CONTINUES = re.compile(r"\s*(?P<word>and|then|also|plus|while|with|as well as)\b", re.I)
# Words of a permission or an exception: what they allow, a compiled part might demand.
# ("instead" is no such word: "generates code from scratch instead of cloning" is a fail
# signal's wrong behaviour, "routes to X instead of Y" a claim.)
# (Red team, round 6: an allowance needs no fixed word. Beside the words of permission, a
# sentence that says another behaviour satisfies, counts or is valid, that the agent may or can
# do something, or that offers something in a bare "instead" or "either", may widen a compiled
# part; so may one that speaks of the criteria themselves as alternatives.)
_RELAXING = re.compile(
    r"\b(?P<word>acceptable|allowed|permitted|permissible|suffices?|sufficient|optional(?:ly)?"
    r"|unless|except|exception|as long as|either way|need not|needn't"
    r"|(?:is|are|also|still) (?:fine|ok|okay|enough)"
    r"|do(?:es)?(?: not|n't) (?:need|have) to|not (?:required|necessary|needed)|no need"
    r"|satisf(?:y|ies|ied|ying)|counts?(?: as well| too)|also counts?|counts? as"
    r"|(?:is|are|be|also|an?) accepted|(?:equally|also|just as) valid|equally|substitutes?"
    r"|waived?|(?:is|are) unnecessary|works? (?:too|as well)"
    r"|will do|is a pass|(?:also|equally) met|met by|the same holds|alternatives?"
    r"|(?:agent|it|they|assistant|answer|user) (?:may|can|could|might)"
    r"|(?:may|can|could|might) (?:also|instead|skip|omit|choose)|either(?! \S+ or\b)"
    r"|instead(?! of))\b",
    re.I,
)
# A sentence that exempts a behaviour from failing: it may undo a compiled fail signal (a
# required entry's) or a forbidden entry's observation.
_EXEMPTING = re.compile(
    r"\b(?P<word>not (?:a |an )?(?:failure|fail|violation|problem|error|issue|mistake)"
    r"|(?:does|do|is|are)(?: not|n't) (?:count|apply|matter)"
    r"|only (?:a problem|a failure|a violation|forbidden|counts?|fails?|applies|matters)"
    r"|no (?:failure|violation|problem)|exempt\w*|excused?|waived?)\b",
    re.I,
)


@dataclass(frozen=True)
class Part:
    """A sentence of the entry that compiled: its provenance, the check the entry runs for it
    (a required entry's fail signal denied, as `compile_entry` runs it) and, when it cannot fail
    the entry alone, why (`blocker`)."""

    provenance: Provenance
    check: Check
    blocker: str | None = None

    @property
    def decides(self) -> bool:
        return self.blocker is None


@dataclass(frozen=True)
class EntryParts:
    """An entry that does not compile whole, read part by part."""

    parts: list[Part]
    uncompiled: list[SentenceOutcome]  # the sentences that did not compile, in order
    # Fail signals that only deny a compiled pass criterion: accounted for, no check of their own.
    complements: list[Provenance]

    @property
    def deciding(self) -> list[Part]:
        return [p for p in self.parts if p.decides]


def entry_parts(
    entry: AssertionEntry,
    polarity: Polarity,
    vocabulary: SkillVocabulary | None = None,
    outcomes: list[SentenceOutcome] | None = None,
) -> EntryParts | None:
    """The compiled sentences of an entry that does not compile whole, each with what keeps it
    from failing the entry alone (None: it compiles whole, or none of its sentences does).
    `outcomes`: its sentences as `compile_sentences` already compiled them."""
    if outcomes is None:
        outcomes = compile_sentences(entry, polarity, vocabulary)
    uncompiled = [o for o in outcomes if o.provenance is None]
    compiled = [o for o in outcomes if o.provenance is not None and o.check is not None]
    if not compiled or (not uncompiled and alternatives(entry, polarity) is None):
        return None
    whole = _entry_guard(entry, polarity, uncompiled)
    parts = []
    for outcome in compiled:
        assert outcome.provenance is not None and outcome.check is not None
        blocker = whole or _part_guard(entry, polarity, outcome)
        parts.append(Part(outcome.provenance, outcome.check, blocker))
    complements = [o.provenance for o in outcomes if o.provenance is not None and o.check is None]
    return EntryParts(parts, uncompiled, complements)


def _entry_guard(
    entry: AssertionEntry, polarity: Polarity, uncompiled: list[SentenceOutcome]
) -> str | None:
    """Why no part of the entry decides alone, or None."""
    if polarity == "forbidden" and entry.pass_criteria and entry.fail_signals:
        return (
            "a forbidden entry with both pass criteria and fail signals: which sentences are the"
            " behaviour?"
        )
    relaxing = _RELAXING.search(entry.description)
    if relaxing is not None:
        return (
            f"the description {entry.description!r} may allow or excuse what a compiled part"
            f" demands ({relaxing.group('word')!r})"
        )
    for outcome in uncompiled:
        exempting = _EXEMPTING.search(outcome.sentence)
        if exempting is not None:
            return (
                f"{outcome.role} {outcome.sentence!r} may exempt what a compiled part sees"
                f" ({exempting.group('word')!r})"
            )
        # What a required entry's fail signal says is a wrong behaviour, not an excuse.
        # (A pass criterion that opens with a disjunction is the part guard's: alternatives.)
        excusing = (polarity == "forbidden" or outcome.role != "fail_signals") and not (
            outcome.role == "pass_criteria" and _ALTERNATIVE.match(outcome.sentence)
        )
        relaxing = _RELAXING.search(outcome.sentence) if excusing else None
        if relaxing is not None:
            return (
                f"{outcome.role} {outcome.sentence!r} may allow or excuse what a compiled part"
                f" demands ({relaxing.group('word')!r})"
            )
        qualifier = _QUALIFIER.match(outcome.sentence)
        if qualifier is not None:
            return (
                f"{outcome.role} {outcome.sentence!r} opens with {qualifier.group('word')!r}:"
                " it qualifies the others"
            )
    if polarity == "forbidden":
        joined = _continuing(entry.fail_signals or entry.pass_criteria)
        if joined is not None:
            return joined
    return None


def _part_guard(entry: AssertionEntry, polarity: Polarity, outcome: SentenceOutcome) -> str | None:
    """Why this compiled sentence of a required entry cannot fail it alone, or None."""
    if polarity != "required":
        return None
    if outcome.role == "pass_criteria":
        for criterion in entry.pass_criteria:
            opening = _ALTERNATIVE.match(criterion) or _POINTS_AT_OTHERS.search(criterion)
            if opening is not None:
                return (
                    f"the pass criteria are alternatives ({criterion!r} says"
                    f" {opening.group('word')!r}): one that does not hold fails nothing"
                )
        offered = _description_alternative(entry.description)
        if offered is not None:
            return (
                f"the description offers alternatives ({entry.description!r} says {offered!r}):"
                " one pass criterion that does not hold fails nothing"
            )
        return None
    joined = _continuing(entry.fail_signals)
    if joined is not None:
        return joined
    assert outcome.provenance is not None
    if outcome.provenance.rule.startswith("not "):
        literals = sentence_literals(outcome.sentence)
        for criterion in entry.pass_criteria:
            named = sentence_literals(criterion)
            if not literals or any(names_same(a, b) for a in literals for b in named):
                return (
                    "a denial of what a pass criterion names: that criterion's complement, no"
                    " claim of its own"
                )
    return None


def alternatives(entry: AssertionEntry, polarity: Polarity) -> str | None:
    """Why a required entry whose every sentence compiled is no conjunction of its criteria:
    its description offers alternatives (`_description_alternative`). Then it is read part by
    part like an entry that does not compile whole: a pass criterion that does not hold fails
    nothing, a fail signal seen still fails it, and the rest is the model judge's."""
    if polarity != "required" or not entry.pass_criteria:
        return None
    offered = _description_alternative(entry.description)
    if offered is None:
        return None
    return (
        f"the description offers alternatives ({entry.description!r} says {offered!r}): the"
        " pass criteria are not all required"
    )


def _description_alternative(description: str) -> str | None:
    """The guard word by which a description offers another way to satisfy the entry: a
    clause of it opening with a disjunction (the pass criteria's rule, per clause: "A, or B"),
    or words pointing at the others anywhere. A bare "or" inside a clause ("reads `a.md` or
    `b.md`") joins two objects of one claim, which the criteria state themselves."""
    pointing = _POINTS_AT_OTHERS.search(description)
    if pointing is not None:
        return pointing.group("word")
    for clause in _CLAUSES.split(description):
        opening = _ALTERNATIVE.match(clause)
        if opening is not None:
            return opening.group("word")
    return None


def _continuing(sentences: list[str]) -> str | None:
    for sentence in sentences[1:]:
        joined = _CONTINUES.match(sentence)
        if joined is not None:
            return (
                f"{sentence!r} opens with {joined.group('word')!r}: the sentences before it are"
                " one claim with it"
            )
    return None
