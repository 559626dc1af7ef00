"""The isolation corpus's escapes and clean look-alikes in the jail under each tracer: the eBPF
tracer (the default where it loads) must give every entry the verdict strace gives it
(docs/benchmarks.md, "The eBPF tracer"). Skipped where the eBPF tracer cannot load (not root, no
BTF, the loader not built by ./dev setup), and in CI unless AGENTIC_EVAL_EBPF_CORPUS=1 (about ten
minutes: CI's other corpus tests run under the default tracer)."""

from __future__ import annotations

import os
import re

import pytest

from evaluator.sandbox import get_tracer
from tests.conftest import in_ci
from tests.corpus import run_corpus, save_summary

pytestmark = [pytest.mark.codex, pytest.mark.timeout(3600), pytest.mark.minutes(6)]


def _ebpf_or_skip() -> None:
    why_not = get_tracer("ebpf").unavailable()
    if why_not:
        pytest.skip(f"no eBPF tracer here: {why_not}")
    if in_ci() and os.environ.get("AGENTIC_EVAL_EBPF_CORPUS") != "1":
        pytest.skip("the corpus under both tracers runs in CI only with AGENTIC_EVAL_EBPF_CORPUS=1")


def _stable(reason: str) -> str:
    reason = re.sub(r"/agentic-eval-tests/[0-9a-f]+/", "/SCRATCH/", reason)
    return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "ID", reason)


def test_the_ebpf_tracer_gives_each_escape_strace_s_verdict(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    _ebpf_or_skip()
    results = run_corpus("escapes.yaml", jailed=True, tracers=("strace", "ebpf"))
    by_strace, by_ebpf = results[0::2], results[1::2]
    save_summary(tmp_path_factory, "escapes-jailed-strace", by_strace)
    summary = save_summary(tmp_path_factory, "escapes-jailed-ebpf", by_ebpf)
    differ = [
        f"{s.id}: strace {s.verdict} ({s.reason}); ebpf {e.verdict} ({e.reason})"
        for s, e in zip(by_strace, by_ebpf, strict=True)
        if s.verdict != e.verdict
    ]
    contained = [
        f"{r.id}: {r.reason}"
        for r in by_ebpf
        if r.verdict == "contained" and not r.reaches_nothing_in_jail
    ]
    # The reasons too (the trace's findings are in them), without what differs between any two
    # runs (the scratch directory, a sub-agent's id): reported, not asserted, since a reason may
    # name a count that differs by timing without changing what was judged.
    reasons = [
        f"{s.id}: strace: {s.reason}; ebpf: {e.reason}"
        for s, e in zip(by_strace, by_ebpf, strict=True)
        if s.verdict == e.verdict and _stable(s.reason) != _stable(e.reason)
    ]
    agree = len(by_ebpf) - len(differ)
    print(f"\nescapes in the jail: {agree} of {len(by_ebpf)} verdicts agree ({summary})")
    print(f"reasons that differ under the same verdict: {len(reasons)}")
    print("\n".join([*differ, *reasons]))
    assert contained == []
    assert differ == []


def test_in_the_jail_under_ebpf_every_clean_command_is_contained_as_under_strace(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    _ebpf_or_skip()
    results = run_corpus("clean.yaml", jailed=True, tracers=("strace", "ebpf"))
    by_strace, by_ebpf = results[0::2], results[1::2]
    summary = save_summary(tmp_path_factory, "clean-jailed-ebpf", by_ebpf)
    wrong = [f"{r.id}: {r.verdict}: {r.reason}" for r in by_ebpf if r.verdict != "contained"]
    differ = [
        f"{s.id}: strace {s.verdict}; ebpf {e.verdict}"
        for s, e in zip(by_strace, by_ebpf, strict=True)
        if s.verdict != e.verdict
    ]
    print(f"\nclean in the jail under eBPF: {len(by_ebpf)} runs ({summary})")
    print("\n".join([*wrong, *differ]))
    assert wrong == []
    assert differ == []
