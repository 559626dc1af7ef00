"""`read_before`: the first read of `first` comes before any read of `then`."""

from __future__ import annotations

from evaluator.contract.models import ReadBeforeCheck
from evaluator.judge.base import JudgeContext, path_matches
from evaluator.judge.checks.registry import register_check
from evaluator.judge.verdict import CheckVerdict, failed, passed

KIND = "read_before"


@register_check(KIND)
def read_before(check: ReadBeforeCheck, context: JudgeContext) -> CheckVerdict:
    reads = context.reads()
    firsts = context.matching(reads, check.first)
    if not firsts:
        return failed(KIND, f"{check.first} was never read")
    # A read of `first` can also match `then` (docs.txt vs references/*): it does not count twice.
    thens = [
        r
        for r in context.matching(reads, check.then)
        if not any(path_matches(rel, check.first) for rel in _relatives(context, r.path))
    ]

    def order(record_id: str) -> int:
        return int(record_id.removeprefix("msg-"))

    first = min(firsts, key=lambda r: order(r.id))
    if not thens:
        return passed(
            KIND,
            f"{check.first} read; nothing matching {check.then} was read",
            [context.ref(first)],
        )
    then = min(thens, key=lambda r: order(r.id))
    if order(first.id) < order(then.id):
        return passed(
            KIND,
            f"{check.first} ({first.id}) before {check.then} ({then.id})",
            [context.ref(first), context.ref(then)],
        )
    return failed(
        KIND,
        f"{check.then} ({then.id}) was read before {check.first} ({first.id})",
        [context.ref(then), context.ref(first)],
    )


def _relatives(context: JudgeContext, path: str | None) -> list[str]:
    if path is None:
        return []
    return [rel for p in context.expand(path) if (rel := context.relative(p)) is not None]
