"""Whether two runs can be compared case by case: the same target, skill and case definitions.

Cases present in one run only are fine (they are `added` or `removed`); a case present in both
whose definition changed is not, since its two results answer different questions. What it
judges decides when both runs recorded it (`judged_digest`: the dialect of its file does not). Runs that
recorded no case fingerprint (older runs, other evaluators) cannot be checked on that point.
"""

from __future__ import annotations

from evaluator.artifacts.models import CaseResult
from evaluator.artifacts.trigger_files import TRIGGER_PLAN_FILE
from evaluator.artifacts.trigger_report import TRIGGERS_FILE
from evaluator.gate.rundir import RunRecord


def _run_kind(run: RunRecord) -> str:
    trigger = any((run.path / name).is_file() for name in (TRIGGER_PLAN_FILE, TRIGGERS_FILE))
    return "a trigger run" if trigger else "a case run"


def same_definition(was: CaseResult, now: CaseResult) -> bool:
    """Whether two results of one case id judged the same case: by what it judges when both
    recorded that (a suite converted from evals.json to YAML is the same suite), else by its
    definition; a run that recorded neither cannot be checked on that point."""
    if was.judged_digest is not None and now.judged_digest is not None:
        return was.judged_digest == now.judged_digest
    if was.case_digest is None or now.case_digest is None:
        return True
    return was.case_digest == now.case_digest


def differences(base: RunRecord, candidate: RunRecord, role: str = "base") -> list[str]:
    """Every way the two runs are not comparable, one phrase each (empty: comparable); `role`
    names the base run in them."""
    found = []
    for name, label in (("target_id", "targets"), ("target_skill_path", "skills")):
        was, now = base.manifest.get(name), candidate.manifest.get(name)
        if was != now:
            found.append(
                f"different {label}: {role} {was or 'unknown'}, candidate {now or 'unknown'}"
            )
    digests: dict[str, CaseResult] = {r.case_id: r for r in base.results}
    changed = [
        r.case_id
        for r in candidate.results
        if r.case_id in digests and not same_definition(digests[r.case_id], r)
    ]
    if changed:
        found.append(f"different case definitions: {', '.join(changed)}")
    kinds = _run_kind(base), _run_kind(candidate)
    if kinds[0] != kinds[1]:
        found.append(f"different kinds of run: {role} {kinds[0]}, candidate {kinds[1]}")
    elif (
        base.results
        and candidate.results
        and not set(digests) & {r.case_id for r in candidate.results}
    ):
        # Every case would be `added` or `removed`: a gate that compared nothing would pass.
        found.append("no case is in both runs, so nothing would be compared")
    return found


def score_differences(reference: RunRecord, candidate: RunRecord, role: str) -> list[str]:
    """Every way two runs' scores are not comparable (empty: comparable): `differences`, and
    any case one run holds and the other does not. A score is a mean over the cases of its run,
    so a candidate scored without a case the `role` run failed (or with an easier one added)
    would win by the selection, not by the skill."""
    found = differences(reference, candidate, role)
    ours = [r.case_id for r in candidate.results]
    theirs = [r.case_id for r in reference.results]
    if set(ours) & set(theirs):
        only = [c for c in theirs if c not in ours]
        if only:
            found.append(f"case(s) only in the {role} run: {', '.join(only)}")
        extra = [c for c in ours if c not in theirs]
        if extra:
            found.append(f"case(s) only in the candidate run: {', '.join(extra)}")
    return found


# What a run was run with, beside its cases and skill: a different one may move the pass rate.
_SETTINGS = (
    ("agent", "agent"),
    ("agent_version", "agent version"),
    ("model", "model"),
    ("model_base_url", "model endpoint"),
    ("sandbox", "sandbox"),
)


def setting_differences(base: RunRecord, candidate: RunRecord) -> list[str]:
    """How the runs' agent, its version, model, endpoint or sandbox differ, one phrase each: not
    a reason to refuse the comparison (upgrading the agent is a change to compare too), but a
    change they show may be that one's, not the skill's."""
    found = []
    for name, label in _SETTINGS:
        was, now = base.manifest.get(name), candidate.manifest.get(name)
        if was != now:
            found.append(f"{label}: base {was or 'unknown'}, candidate {now or 'unknown'}")
    return found
