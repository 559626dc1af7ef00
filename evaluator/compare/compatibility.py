"""Whether two runs can be compared case by case: the same target, skill and case definitions.

Cases present in one run only are fine (they are `added` or `removed`); a case present in both
whose definition changed is not, since its two results answer different questions. Runs that
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


def differences(base: RunRecord, candidate: RunRecord) -> list[str]:
    """Every way the two runs are not comparable, one phrase each (empty: comparable)."""
    found = []
    for name, label in (("target_id", "targets"), ("target_skill_path", "skills")):
        was, now = base.manifest.get(name), candidate.manifest.get(name)
        if was != now:
            found.append(
                f"different {label}: base {was or 'unknown'}, candidate {now or 'unknown'}"
            )
    digests: dict[str, CaseResult] = {r.case_id: r for r in base.results}
    changed = [
        r.case_id
        for r in candidate.results
        if r.case_id in digests
        and r.case_digest is not None
        and digests[r.case_id].case_digest is not None
        and r.case_digest != digests[r.case_id].case_digest
    ]
    if changed:
        found.append(f"different case definitions: {', '.join(changed)}")
    kinds = _run_kind(base), _run_kind(candidate)
    if kinds[0] != kinds[1]:
        found.append(f"different kinds of run: base {kinds[0]}, candidate {kinds[1]}")
    elif (
        base.results
        and candidate.results
        and not set(digests) & {r.case_id for r in candidate.results}
    ):
        # Every case would be `added` or `removed`: a gate that compared nothing would pass.
        found.append("no case is in both runs, so nothing would be compared")
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
