"""Trigger metrics: per-prompt trigger rates over K attempts, precision, recall and F1 over prompts
and over attempts with their intervals, and the suspect-run flag.

The intervals are Wilson score intervals on the counts (`count_intervals`): a percentile
bootstrap over a few prompts is degenerate (eight prompts all right resample to F1 1.0 every
time: `[1, 1]`). Over attempts, where a prompt's attempts are not independent, the interval is
also no narrower than the seeded bootstrap over prompts (docs/triggers.md, "Intervals").

Pure functions of the attempts' outcomes. An undefined ratio (precision when nothing fired,
recall without a prompt that should fire) is None, never 0 or 1: "precision 100%, recall 0%"
from a run where nothing could fire is exactly the number this module refuses to make up.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from evaluator.evidence.triggers import Trigger
from evaluator.stats.proportion import wilson

BOOTSTRAP_SAMPLES = 1000
CONFIDENCE = 0.95


@dataclass(frozen=True)
class AttemptOutcome:
    """One attempt of one trigger case. `fired`: the target skill fired; `others`: the other
    installed skills that fired (a description that steals prompts shows here); `invalid`: why the attempt cannot count (an unclean
    registry, a blocked attempt). The other fields are what the suspect check reads."""

    prompt: str  # the trigger case id
    expect: bool
    fired: bool
    others: tuple[str, ...] = ()
    invalid: str | None = None
    timed_out: bool = False
    tool_calls: int | None = None  # None: not known
    listed: bool | None = None  # the target was in the skill list the agent reported
    first_call: bool | None = None  # the target fired on the agent's first tool call
    refused: str | None = None  # the CLI's answer to a call for the target that did not succeed


def attempt_outcome(
    prompt: str,
    expect: bool,
    target: str,
    triggers: Sequence[Trigger],
    *,
    invalid: str | None = None,
    timed_out: bool = False,
    tool_calls: int | None = None,
    reported: Collection[str] | None = None,
) -> AttemptOutcome:
    """One attempt's outcome from the skills its session showed firing (an adapter's
    `skill_triggers`) and the facts of the attempt; `reported` is the skill list the agent gave."""
    fired = next((t for t in triggers if t.skill == target), None)
    return AttemptOutcome(
        prompt=prompt,
        expect=expect,
        fired=fired is not None,
        others=tuple(t.skill for t in triggers if t.skill != target),
        invalid=invalid,
        timed_out=timed_out,
        tool_calls=tool_calls,
        listed=None if reported is None else target in reported,
        first_call=None if fired is None else fired.first,
    )


@dataclass(frozen=True)
class PromptRate:
    prompt: str
    expect: bool
    attempts: int  # valid attempts
    fired: int
    invalid: int
    others: dict[str, int]  # other skills that fired, with their counts

    @property
    def rate(self) -> float | None:
        return self.fired / self.attempts if self.attempts else None

    @property
    def triggered(self) -> bool | None:
        """The prompt triggers when a strict majority of its valid attempts did."""
        return 2 * self.fired > self.attempts if self.attempts else None

    @property
    def misfires(self) -> bool:
        return self.triggered is not None and self.triggered != self.expect


@dataclass(frozen=True)
class Interval:
    low: float | None
    high: float | None


@dataclass(frozen=True)
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.tn + other.tn
        )

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def f1(self) -> float | None:
        precision, recall = self.precision, self.recall
        if precision is None or recall is None:
            return None
        return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def _count(expect: bool, fired: bool) -> Counts:
    if expect:
        return Counts(tp=1) if fired else Counts(fn=1)
    return Counts(fp=1) if fired else Counts(tn=1)


@dataclass(frozen=True)
class Score:
    """Precision, recall and F1 with their intervals, from one way of counting."""

    counts: Counts
    intervals: dict[str, Interval]

    @property
    def precision(self) -> float | None:
        return self.counts.precision

    @property
    def recall(self) -> float | None:
        return self.counts.recall

    @property
    def f1(self) -> float | None:
        return self.counts.f1


@dataclass(frozen=True)
class Suspicion:
    kind: str  # "nothing-fired" | "everything-fired" | "mostly-undecided"
    causes: list[str]


@dataclass(frozen=True)
class TriggerMetrics:
    prompts: list[PromptRate]
    over_prompts: Score
    over_attempts: Score
    suspect: Suspicion | None
    invalid_attempts: int
    undecided_prompts: list[str] = field(default_factory=list)  # no valid attempt


def prompt_rates(outcomes: Sequence[AttemptOutcome]) -> list[PromptRate]:
    """Per prompt, in the order prompts first appear."""
    grouped: dict[str, list[AttemptOutcome]] = {}
    for outcome in outcomes:
        grouped.setdefault(outcome.prompt, []).append(outcome)
    rates = []
    for prompt, attempts in grouped.items():
        valid = [a for a in attempts if a.invalid is None]
        others: Counter[str] = Counter()
        for attempt in valid:
            others.update(set(attempt.others))
        rates.append(
            PromptRate(
                prompt=prompt,
                expect=attempts[0].expect,
                attempts=len(valid),
                fired=sum(a.fired for a in valid),
                invalid=len(attempts) - len(valid),
                others=dict(sorted(others.items())),
            )
        )
    return rates


def prompt_counts(rate: PromptRate) -> Counts:
    return _count(rate.expect, bool(rate.triggered)) if rate.attempts else Counts()


def attempt_counts(rate: PromptRate) -> Counts:
    fired, missed = rate.fired, rate.attempts - rate.fired
    if rate.expect:
        return Counts(tp=fired, fn=missed)
    return Counts(fp=fired, tn=missed)


def bootstrap(
    rates: Sequence[PromptRate],
    counter: Callable[[PromptRate], Counts],
    *,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
    confidence: float = CONFIDENCE,
) -> dict[str, Interval]:
    """Percentile intervals of precision, recall and F1 over prompts drawn with replacement;
    resamples where a ratio is undefined are left out of that ratio's interval."""
    pool = [counter(rate) for rate in rates if rate.attempts]
    values: dict[str, list[float]] = {"precision": [], "recall": [], "f1": []}
    if pool:
        draw = random.Random(seed)
        for _ in range(samples):
            total = Counts()
            for counts in draw.choices(pool, k=len(pool)):
                total = total + counts
            for name in values:
                value = getattr(total, name)
                if value is not None:
                    values[name].append(value)
    tail = (1 - confidence) / 2
    return {
        name: Interval(_quantile(found, tail), _quantile(found, 1 - tail))
        for name, found in values.items()
    }


def count_intervals(counts: Counts, confidence: float = CONFIDENCE) -> dict[str, Interval]:
    """Wilson score intervals on the counts: precision on tp of tp + fp, recall on tp of tp +
    fn, F1 through tp of tp + fp + fn (J, the share of the prompts that fired or should have
    which did both), as F1 = 2J / (1 + J) is increasing in J. Undefined where the ratio is."""

    def ratio(hits: int, total: int) -> Interval:
        found = wilson(hits, total, confidence)
        return Interval(None, None) if found is None else Interval(found.low, found.high)

    tp, fp, fn = counts.tp, counts.fp, counts.fn
    jaccard = ratio(tp, tp + fp + fn)
    f1 = (
        Interval(None, None)
        if counts.f1 is None or jaccard.low is None or jaccard.high is None
        else Interval(2 * jaccard.low / (1 + jaccard.low), 2 * jaccard.high / (1 + jaccard.high))
    )
    return {"precision": ratio(tp, tp + fp), "recall": ratio(tp, tp + fn), "f1": f1}


def _hull(first: Interval, second: Interval) -> Interval:
    """The smallest interval holding both (a side undefined in one is the other's)."""
    lows = [v for v in (first.low, second.low) if v is not None]
    highs = [v for v in (first.high, second.high) if v is not None]
    return Interval(min(lows) if lows else None, max(highs) if highs else None)


def _quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def trigger_metrics(
    outcomes: Sequence[AttemptOutcome],
    *,
    skill: str | None = None,
    prompt_texts: Mapping[str, str] | None = None,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
) -> TriggerMetrics:
    """Everything a trigger report shows, from every attempt of every trigger case."""
    rates = prompt_rates(outcomes)
    by_prompt = Counts()
    by_attempt = Counts()
    for rate in rates:
        by_prompt = by_prompt + prompt_counts(rate)
        by_attempt = by_attempt + attempt_counts(rate)
    # Over attempts the bootstrap over prompts keeps a prompt's attempts together; the counts'
    # interval keeps it from collapsing when every resample gives the same ratio.
    resampled = bootstrap(rates, attempt_counts, samples=samples, seed=seed)
    attempt_intervals = {
        name: _hull(found, resampled[name]) for name, found in count_intervals(by_attempt).items()
    }
    return TriggerMetrics(
        prompts=rates,
        over_prompts=Score(by_prompt, count_intervals(by_prompt)),
        over_attempts=Score(by_attempt, attempt_intervals),
        suspect=suspicion(outcomes, skill=skill, prompt_texts=prompt_texts),
        invalid_attempts=sum(o.invalid is not None for o in outcomes),
        undecided_prompts=[r.prompt for r in rates if not r.attempts],
    )


def suspicion(
    outcomes: Sequence[AttemptOutcome],
    *,
    skill: str | None = None,
    prompt_texts: Mapping[str, str] | None = None,
) -> Suspicion | None:
    """A run where the skill never fired, or fired on every attempt, is more likely broken than
    measured: each likely cause the outcomes can show is checked and named."""
    valid = [o for o in outcomes if o.invalid is None]
    invalid = [o for o in outcomes if o.invalid is not None]
    if not outcomes:
        return None
    if not any(o.fired for o in valid) and any(o.expect for o in outcomes):
        return Suspicion("nothing-fired", _nothing_causes(valid, invalid))
    if valid and all(o.fired for o in valid) and any(not o.expect for o in valid):
        return Suspicion("everything-fired", _everything_causes(valid, skill, prompt_texts))
    prompts = {o.prompt for o in outcomes}
    decided = {o.prompt for o in valid}
    if len(decided) * 2 < len(prompts):
        # An F1 over the few prompts left says little about the description.
        reasons = Counter(str(o.invalid) for o in invalid)
        listed = "; ".join(f"{why} ({n})" for why, n in reasons.most_common(3))
        return Suspicion(
            "mostly-undecided",
            [
                f"{len(prompts) - len(decided)} of {len(prompts)} prompts have no valid attempt"
                f" (invalid: {listed})"
            ],
        )
    return None


def _excerpt(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


def _share(part: int, whole: int) -> str:
    return f"{part} of {whole} attempts"


def _nothing_causes(valid: list[AttemptOutcome], invalid: list[AttemptOutcome]) -> list[str]:
    causes: list[str] = []
    total = len(valid) + len(invalid)
    if invalid:
        reasons = Counter(str(o.invalid) for o in invalid)
        listed = "; ".join(f"{why} ({n})" for why, n in reasons.most_common(3))
        causes.append(f"{_share(len(invalid), total)} were invalid: {listed}")
    # Only the attempts that should have fired can show why nothing did: an answer without a
    # tool call to a prompt that should not fire is the right behaviour, not a cause.
    should = [o for o in valid if o.expect]
    if not should:
        return causes

    def of_should(part: int) -> str:
        return f"{part} of {len(should)} attempts on prompts that should fire"

    unlisted = sum(o.listed is False for o in should)
    if unlisted:
        causes.append(
            "the skill was missing from the skill list the agent reported in"
            f" {of_should(unlisted)}: it could not be chosen"
        )
    timed_out = sum(o.timed_out for o in should)
    if timed_out:
        causes.append(f"{of_should(timed_out)} ended by timeout before a decision")
    silent = sum(o.tool_calls == 0 for o in should)
    if silent:
        causes.append(f"the agent answered without any tool call in {of_should(silent)}")
    refused = [o.refused for o in should if o.refused and not o.fired]
    if refused:
        answer = Counter(refused).most_common(1)[0][0]
        causes.append(
            f"the agent asked for the skill and its CLI did not load it in {of_should(len(refused))}:"
            f" {_excerpt(answer)}"
        )
    stolen: Counter[str] = Counter(s for o in should for s in o.others)
    if stolen:
        names = ", ".join(f"{name} ({n})" for name, n in stolen.most_common(3))
        causes.append(f"other skills fired instead: {names}")
    if not causes:
        causes.append(
            "no cause visible in the evidence: the description may not match these prompts, or"
            " the agent's trigger signal is not being observed"
        )
    return causes


def _everything_causes(
    valid: list[AttemptOutcome], skill: str | None, prompt_texts: Mapping[str, str] | None
) -> list[str]:
    causes: list[str] = []
    if skill and prompt_texts:
        naming = sorted(
            o.prompt
            for o in {o.prompt: o for o in valid if not o.expect}.values()
            if skill.lower() in prompt_texts.get(o.prompt, "").lower()
        )
        if naming:
            causes.append(f"prompts that should not fire name the skill: {', '.join(naming)}")
    first = sum(o.first_call is True for o in valid)
    if first == len(valid):
        causes.append(
            "the skill fired on the first tool call of every attempt: an agent that loads skills"
            " before reading the prompt decides nothing"
        )
    causes.append(
        "the description may claim too much: no prompt that should not fire was told apart"
    )
    return causes
