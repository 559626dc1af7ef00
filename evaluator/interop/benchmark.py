"""skill-creator's `benchmark.json` and `benchmark.md` over two or more labelled runs.

Each run is one configuration (`with_skill` / `without_skill`, or `new` / `old`); each judged
attempt of it is one of skill-creator's runs, graded as `skill_creator.py` grades it. The deltas
are every other configuration minus the baseline, stated explicitly: skill-creator's own
aggregation subtracts the second directory in sort order from the first, so its sign flips with
the labels' spelling; ours does not. `run_summary` lists the compared configuration first and the
baseline second, so skill-creator's viewer (which reads them in that order) shows the same sign.
The output directory also gets every grading in skill-creator's `eval-<id>/<configuration>/
run-<n>/` layout, so its own tools can aggregate it again.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from evaluator import __version__
from evaluator.artifacts.models import Manifest
from evaluator.artifacts.redact import Redactor
from evaluator.artifacts.rundir import RunDir
from evaluator.errors import InputError
from evaluator.interop.atif import attempt_trajectory
from evaluator.interop.atif_model import Trajectory
from evaluator.interop.runs import AttemptSource, run_attempts, write_redacted_json
from evaluator.interop.runs import write_redacted_text as write_text
from evaluator.interop.skill_creator import (
    Expectation,
    Grading,
    eval_id_of,
    grading,
    prompt_of,
    write_grading,
)

LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# Labels that name the side a comparison is measured from, when --baseline does not say.
BASELINE_NAMES = ("without_skill", "old_skill", "old", "baseline", "base")
BENCHMARK_JSON = "benchmark.json"
BENCHMARK_MD = "benchmark.md"


class _Exact(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Stat(_Exact):
    mean: float
    stddev: float
    min: float
    max: float


class ConfigurationSummary(_Exact):
    pass_rate: Stat
    time_seconds: Stat
    tokens: Stat


class Delta(_Exact):
    pass_rate: str
    time_seconds: str
    tokens: str


class RunResult(_Exact):
    pass_rate: float
    passed: int
    failed: int
    total: int
    time_seconds: float
    tokens: int
    tool_calls: int
    errors: int


class BenchmarkRun(_Exact):
    eval_id: int | str
    eval_name: str
    configuration: str
    run_number: int
    result: RunResult
    expectations: list[Expectation]
    notes: list[str]


class Metadata(_Exact):
    skill_name: str
    skill_path: str
    executor_model: str
    analyzer_model: str
    timestamp: str
    evals_run: list[int | str]
    runs_per_configuration: int


class Benchmark(_Exact):
    metadata: Metadata
    runs: list[BenchmarkRun]
    run_summary: dict[str, ConfigurationSummary | Delta]
    notes: list[str]


@dataclass(frozen=True)
class Configuration:
    """One labelled run of the comparison."""

    label: str
    run_dir: RunDir


@dataclass
class _Graded:
    source: AttemptSource
    grading: Grading
    trajectory: Trajectory | None


def check_labels(labels: list[str], runs: int, baseline: str | None) -> str:
    """The baseline label, after checking the labels; a one-line error otherwise."""
    if len(labels) != runs:
        raise InputError(f"--labels names {len(labels)} configuration(s) for {runs} run(s)")
    for label in labels:
        if not LABEL.match(label):
            raise InputError(f"label `{label}` must be a plain name (letters, digits, _ . -)")
    if len(set(labels)) != len(labels):
        raise InputError("--labels repeats a label")
    if baseline is not None:
        if baseline not in labels:
            raise InputError(f"--baseline `{baseline}` is not one of the labels")
        return baseline
    return next((label for label in labels if label in BASELINE_NAMES), labels[-1])


def stats(values: list[float]) -> Stat:
    """Mean, sample standard deviation, min and max, as skill-creator computes them."""
    if not values:
        return Stat(mean=0.0, stddev=0.0, min=0.0, max=0.0)
    mean = sum(values) / len(values)
    spread = (
        math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
        if len(values) > 1
        else 0.0
    )
    return Stat(
        mean=round(mean, 4), stddev=round(spread, 4), min=round(min(values), 4),
        max=round(max(values), 4),
    )  # fmt: skip


def skill_name(skill_path: str) -> str:
    """The skill's folder name (the manifest names its SKILL.md)."""
    path = Path(skill_path)
    return path.parent.name if path.name == "SKILL.md" else path.name


def attempt_tokens(source: AttemptSource) -> int:
    tokens = source.record.tokens or {}
    if "total" in tokens:
        return tokens["total"]
    return sum(
        tokens.get(k, 0) for k in ("input", "output", "cache_creation_input", "cache_read_input")
    )


def _graded(configuration: Configuration, manifest: Manifest, notes: list[str]) -> list[_Graded]:
    found = []
    skipped = []
    for source in run_attempts(configuration.run_dir, manifest):
        trajectory = attempt_trajectory(source, manifest, notes)
        graded = grading(source, trajectory)
        if graded is None:
            skipped.append(
                f"{source.case.case_id} attempt {source.number:02d}"
                f" ({source.record.status}: {source.record.blocked_reason or 'not judged'})"
            )
            continue
        found.append(_Graded(source, graded, trajectory))
    if skipped:
        notes.append(
            f"{configuration.label}: {len(skipped)} attempt(s) not judged pass or fail, left out of"
            f" the pass rates (see that run's report.md): {', '.join(skipped)}"
        )
    return found


def _run(label: str, item: _Graded) -> BenchmarkRun:
    record = item.source.record
    metrics = item.grading.execution_metrics
    notes = []
    if item.grading.user_notes_summary is not None:
        notes = [
            *item.grading.user_notes_summary.uncertainties,
            *item.grading.user_notes_summary.needs_review,
        ]
    return BenchmarkRun(
        eval_id=eval_id_of(item.source.case.case_id),
        eval_name=item.source.case.title or item.source.case.case_id,
        configuration=label,
        run_number=record.attempt,
        result=RunResult(
            pass_rate=item.grading.summary.pass_rate,
            passed=item.grading.summary.passed,
            failed=item.grading.summary.failed,
            total=item.grading.summary.total,
            time_seconds=float(record.duration_s or 0.0),
            tokens=attempt_tokens(item.source),
            tool_calls=metrics.total_tool_calls,
            errors=metrics.errors_encountered,
        ),
        expectations=item.grading.expectations,
        notes=notes,
    )


def _summary(runs: list[BenchmarkRun]) -> ConfigurationSummary:
    return ConfigurationSummary(
        pass_rate=stats([r.result.pass_rate for r in runs]),
        time_seconds=stats([r.result.time_seconds for r in runs]),
        tokens=stats([float(r.result.tokens) for r in runs]),
    )


def delta(compared: ConfigurationSummary, baseline: ConfigurationSummary) -> Delta:
    """`compared` minus `baseline`, signed as skill-creator writes it."""
    return Delta(
        pass_rate=f"{compared.pass_rate.mean - baseline.pass_rate.mean:+.2f}",
        time_seconds=f"{compared.time_seconds.mean - baseline.time_seconds.mean:+.1f}",
        tokens=f"{compared.tokens.mean - baseline.tokens.mean:+.0f}",
    )


@dataclass
class _Collected:
    """Each configuration's manifest and judged attempts, and what the notes must say."""

    manifests: dict[str, Manifest]
    graded: dict[str, list[_Graded]]
    notes: list[str]


def _collect(configurations: list[Configuration]) -> _Collected:
    notes: list[str] = []
    manifests = {c.label: c.run_dir.read_manifest() for c in configurations}
    graded = {c.label: _graded(c, manifests[c.label], notes) for c in configurations}
    for configuration in configurations:
        if not graded[configuration.label]:
            # A rate over no attempt would be a made-up 0%: refuse, as `compare` does.
            raise InputError(
                f"`{configuration.label}` has no judged attempt to benchmark"
                " (a trigger run, or every attempt blocked)",
                path=configuration.run_dir.path,
            )
    return _Collected(manifests, graded, notes)


def _assemble(collected: _Collected, baseline: str) -> Benchmark:
    manifests, notes = collected.manifests, list(collected.notes)
    compared = [label for label in manifests if label != baseline]
    order = [*compared, baseline]
    runs = [_run(label, item) for label in order for item in collected.graded[label]]
    summaries = {label: _summary([r for r in runs if r.configuration == label]) for label in order}
    run_summary: dict[str, ConfigurationSummary | Delta] = dict(summaries)
    run_summary["delta"] = delta(summaries[order[0]], summaries[baseline])
    for label in compared[1:]:
        d = delta(summaries[label], summaries[baseline])
        notes.append(
            f"delta {label} - {baseline}: pass_rate {d.pass_rate}, time_seconds"
            f" {d.time_seconds}, tokens {d.tokens}"
        )
    base = set(manifests[baseline].resolved_case_ids)
    for label in compared:
        cases = set(manifests[label].resolved_case_ids)
        if cases != base:
            notes.append(
                f"{label} and {baseline} planned different cases: only in {label}:"
                f" {', '.join(sorted(cases - base)) or 'none'}; only in {baseline}:"
                f" {', '.join(sorted(base - cases)) or 'none'}"
            )
    for label, manifest in manifests.items():
        if manifest.run_state != "completed":
            notes.append(f"{label}: run {manifest.run_id} is {manifest.run_state}")
    lead = manifests[order[0]]
    evals: list[int | str] = []
    for run in runs:
        if run.eval_id not in evals:
            evals.append(run.eval_id)
    return Benchmark(
        metadata=Metadata(
            skill_name=skill_name(lead.target_skill_path),
            skill_path=lead.target_skill_path,
            executor_model=f"{lead.agent_label()}, model {lead.model or 'default'}",
            analyzer_model=f"agentic-eval {__version__} (checks, compiled rules, model judge)",
            timestamp=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            evals_run=evals,
            runs_per_configuration=max(m.attempts for m in manifests.values()),
        ),
        runs=runs,
        run_summary=run_summary,
        notes=notes,
    )


def build_benchmark(configurations: list[Configuration], baseline: str) -> Benchmark:
    """The benchmark of `configurations`, every delta against `baseline`."""
    return _assemble(_collect(configurations), baseline)


def _title(label: str) -> str:
    return label.replace("_", " ").title()


def render_markdown(benchmark: Benchmark, baseline: str) -> str:
    """skill-creator's summary table (`Metric | <compared> | <baseline> | Delta`), then the
    pass rate per eval, then the notes."""
    summaries = {
        k: v for k, v in benchmark.run_summary.items() if isinstance(v, ConfigurationSummary)
    }
    first = next(k for k in summaries if k != baseline) if len(summaries) > 1 else baseline
    a, b = summaries[first], summaries[baseline]
    d = benchmark.run_summary["delta"]
    assert isinstance(d, Delta)
    meta = benchmark.metadata
    lines = [
        f"# Skill Benchmark: {meta.skill_name}",
        "",
        f"**Model**: {meta.executor_model}",
        f"**Date**: {meta.timestamp}",
        f"**Evals**: {', '.join(map(str, meta.evals_run))}"
        f" ({meta.runs_per_configuration} runs each per configuration)",
        "",
        "## Summary",
        "",
        f"| Metric | {_title(first)} | {_title(baseline)} | Delta |",
        "|--------|------------|---------------|-------|",
        f"| Pass Rate | {a.pass_rate.mean * 100:.0f}% ± {a.pass_rate.stddev * 100:.0f}% |"
        f" {b.pass_rate.mean * 100:.0f}% ± {b.pass_rate.stddev * 100:.0f}% | {d.pass_rate} |",
        f"| Time | {a.time_seconds.mean:.1f}s ± {a.time_seconds.stddev:.1f}s |"
        f" {b.time_seconds.mean:.1f}s ± {b.time_seconds.stddev:.1f}s | {d.time_seconds}s |",
        f"| Tokens | {a.tokens.mean:.0f} ± {a.tokens.stddev:.0f} |"
        f" {b.tokens.mean:.0f} ± {b.tokens.stddev:.0f} | {d.tokens} |",
        "",
        f"Delta is {_title(first)} minus {_title(baseline)}.",
        "",
        # skill-creator's pass rate is a share of expectations: beside our reports, whose pass
        # rate counts a case passed only when every entry is, it reads as a contradiction.
        "Pass Rate is skill-creator's: the share of a run's expectations that passed, averaged"
        " over the runs. A run passes only when all of them do: that pass rate is in"
        " eval-report.md and each run's report.md.",
        "",
        "## Per eval",
        "",
        "| Eval | " + " | ".join(_title(k) for k in summaries) + " |",
        "|---|" + "---|" * len(summaries),
    ]
    for eval_id in meta.evals_run:
        cells = []
        for label in summaries:
            rates = [
                r.result.pass_rate
                for r in benchmark.runs
                if r.eval_id == eval_id and r.configuration == label
            ]
            cells.append(f"{sum(rates) / len(rates):.0%} ({len(rates)})" if rates else "-")
        lines.append(f"| {eval_id} | " + " | ".join(cells) + " |")
    if benchmark.notes:
        lines += ["", "## Notes", ""] + [f"- {note}" for note in benchmark.notes]
    return "\n".join(lines) + "\n"


def write_benchmark(
    configurations: list[Configuration],
    baseline: str,
    out: Path,
    redact: Redactor,
    *,
    gradings: Path | None = None,
) -> Benchmark:
    """`out/benchmark.json`, `out/benchmark.md` and every grading under `<gradings>/eval-<id>/`
    (`gradings` defaults to `out`)."""
    collected = _collect(configurations)
    benchmark = _assemble(collected, baseline)
    for label, items in collected.graded.items():
        for item in items:
            prompt = prompt_of(item.trajectory)
            write_grading(gradings or out, label, item.source, item.grading, prompt, redact)
    write_redacted_json(out / BENCHMARK_JSON, benchmark, redact)
    write_text(out / BENCHMARK_MD, render_markdown(benchmark, baseline), redact)
    return benchmark
