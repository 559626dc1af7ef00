"""`--baseline-from RUN`: a finished no-skill or old-version run reused as the reference.

Reuse saves running the baseline again, and is honest only when the stored run answered the
same question under the same conditions: the same target and cases (by their definitions'
digests), agent, model, endpoint and scripted behaviours, and the same K. Anything else is
refused with one line naming the first difference (exit 2), before anything runs. A reused run
was not interleaved with the candidate: `evaluation.json` says so.
"""

from __future__ import annotations

from pathlib import Path

from evaluator.adapters import DEFAULT_RUNNER
from evaluator.artifacts.models import CaseResult, Manifest
from evaluator.artifacts.rundir import RunDir
from evaluator.contract.digest import case_digest
from evaluator.credentials import without_userinfo
from evaluator.errors import InputError
from evaluator.pipeline.runplan import DEFAULT_ATTEMPTS, SCRIPTED_MODEL, RunOptions
from evaluator.plan import Selection


def is_no_skill(manifest: Manifest) -> bool:
    return manifest.is_no_skill()


def _differences(
    manifest: Manifest, results: list[CaseResult], selection: Selection, options: RunOptions
) -> list[str]:
    defaults = selection.target.target.defaults
    agent = options.agent or (defaults.agent if defaults else None) or DEFAULT_RUNNER
    attempts = options.attempts or (defaults.attempts if defaults else None) or DEFAULT_ATTEMPTS
    behaviors = str(options.behaviors.resolve()) if options.behaviors else None
    model = options.model or (SCRIPTED_MODEL if behaviors else None)
    base_url = without_userinfo(options.base_url) if options.base_url else None
    found = []
    if manifest.run_state != "completed":
        found.append(f"the run is {manifest.run_state}, not completed")
    for what, was, now in (
        ("target", manifest.target_id, selection.target.target_id),
        ("agent", manifest.agent, agent),
        ("attempts per case", manifest.attempts, attempts),
        ("model", manifest.model, model),
        ("model endpoint", manifest.model_base_url, base_url),
        ("scripted behaviours", manifest.behaviors_dir, behaviors),
    ):
        if was != now:
            found.append(f"another {what}: the run has {was!r}, this evaluation {now!r}")
    expected = {c.case_id: case_digest(c.case) for c in selection.cases}
    if sorted(manifest.resolved_case_ids) != sorted(expected):
        missing = sorted(set(expected) - set(manifest.resolved_case_ids))
        extra = sorted(set(manifest.resolved_case_ids) - set(expected))
        found.append(
            f"another case set (missing: {', '.join(missing) or '-'};"
            f" extra: {', '.join(extra) or '-'})"
        )
    changed = [
        r.case_id
        for r in results
        if r.case_id in expected
        and r.case_digest is not None
        and r.case_digest != expected[r.case_id]
    ]
    if changed:
        found.append(f"cases defined differently since: {', '.join(changed)}")
    return found


def check_reusable(
    path: Path, selection: Selection, options: RunOptions
) -> tuple[Manifest, list[CaseResult]]:
    run_dir = RunDir(path)
    manifest = run_dir.read_manifest()
    results = run_dir.read_case_results(manifest.resolved_case_ids)
    found = _differences(manifest, results, selection, options)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise InputError(f"cannot reuse {path}: {found[0]}{more}", field="--baseline-from")
    return manifest, results
