"""The tracer family (evaluator/sandbox/trace_base.py): the registry, the choice `choose_policy`
makes, and where each tracer stands in the launched argv. The eBPF tracer's own runs:
test_ebpf_trace.py."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from evaluator.errors import EnvironmentProblem, InputError
from evaluator.sandbox import get_tracer, tracer_choices, tracer_names
from evaluator.sandbox.bwrap import BubblewrapJail
from evaluator.sandbox.ebpf import EBPF_ENV, PER_RUN_ENV, EbpfTracer, SharedLoader
from evaluator.sandbox.launch import LaunchPolicy, choose_policy
from evaluator.sandbox.trace_registry import tracers_by_preference
from evaluator.sandbox.tracer import STRACE_ENV, Tracer

pytestmark = pytest.mark.tracer_choice


def test_the_registry_names_each_tracer_and_refuses_an_unknown_one() -> None:
    assert tracer_names() == ["ebpf", "strace"]
    assert tracer_choices() == ["auto", "ebpf", "strace"]
    assert tracers_by_preference() == ["ebpf", "strace"]
    assert isinstance(get_tracer("strace"), Tracer)
    assert isinstance(get_tracer("ebpf"), EbpfTracer)
    with pytest.raises(InputError, match="unknown tracer 'dtrace'"):
        get_tracer("dtrace")


def test_an_unavailable_ebpf_tracer_falls_back_to_strace_or_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Forced: under `--trace auto` a run asked for eBPF where it cannot load is still traced,
    by strace, and says so; under `--trace on` it is refused in one line."""
    monkeypatch.setenv(EBPF_ENV, "/nonexistent/ebpf-trace")
    if Tracer().unavailable() is not None:
        pytest.skip("strace cannot trace here")
    policy = choose_policy("none", "auto", (), tracer="ebpf")
    assert (policy.trace, policy.tracer) == (True, "strace")
    notes = [note for note in policy.notes if note.startswith("tracer: strace (ebpf")]
    assert len(notes) == 1
    with pytest.raises(EnvironmentProblem, match=r"^--tracer ebpf: "):
        choose_policy("none", "on", (), tracer="ebpf")
    assert choose_policy("none", "off", (), tracer="ebpf").trace is False


def test_where_no_tracer_runs_the_default_is_strace_and_its_refusal_is_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(STRACE_ENV, "/nonexistent/strace")
    monkeypatch.setenv(EBPF_ENV, "/nonexistent/ebpf-trace")
    policy = choose_policy("none", "auto", ())
    assert (policy.trace, policy.tracer) == (False, "strace")
    assert "tracer: strace (--tracer auto: none can run here)" in policy.notes
    with pytest.raises(EnvironmentProblem, match=r"^--trace on: strace from"):
        choose_policy("none", "on", ())


def test_the_default_is_ebpf_where_it_loads_and_strace_elsewhere_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--tracer auto` (the default): eBPF where it can load, strace where it cannot, and the
    manifest's note says which and why; `--tracer strace` still forces strace, and `--trace off`
    probes no tracer."""
    monkeypatch.setattr(Tracer, "unavailable", lambda self: None)
    monkeypatch.setattr(EbpfTracer, "unavailable", lambda self: None)
    for trace in ("auto", "on"):
        policy = choose_policy("none", trace, ())  # type: ignore[arg-type]
        assert (policy.trace, policy.tracer) == (True, "ebpf")
        assert "tracer: ebpf (--tracer auto: it can run here)" in policy.notes
    forced = choose_policy("none", "auto", (), tracer="strace")
    assert (forced.trace, forced.tracer) == (True, "strace")
    assert not [note for note in forced.notes if note.startswith("tracer:")]
    monkeypatch.setattr(EbpfTracer, "unavailable", lambda self: "the kernel has no BTF")
    for trace in ("auto", "on"):
        policy = choose_policy("none", trace, ())  # type: ignore[arg-type]
        assert (policy.trace, policy.tracer) == (True, "strace")
        assert "tracer: strace (--tracer auto: ebpf cannot: the kernel has no BTF)" in policy.notes

    def probed(self: object) -> str:
        raise AssertionError("a tracer probed with the trace off")

    monkeypatch.setattr(EbpfTracer, "unavailable", probed)
    assert choose_policy("none", "off", ()).trace is False


def test_ebpf_needs_root_btf_and_the_built_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(EBPF_ENV, "/nonexistent/ebpf-trace")
    why = EbpfTracer().unavailable()
    assert why is not None
    if os.geteuid() == 0 and Path("/sys/kernel/btf/vmlinux").exists():
        assert "not built" in why and "./dev setup" in why
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert "needs root" in (EbpfTracer().unavailable() or "")


def _jailed(tracer: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv(PER_RUN_ENV, "0")  # the loader per attempt: its argv is the whole form
    monkeypatch.setenv(STRACE_ENV, "/usr/bin/strace")
    monkeypatch.setenv(EBPF_ENV, "/opt/ebpf-trace")
    monkeypatch.setattr(BubblewrapJail, "unavailable", lambda self: None)
    cli = tmp_path / "cli/bin/codex"
    cli.parent.mkdir(parents=True, exist_ok=True)
    cli.write_text("")
    policy = LaunchPolicy(jail="bwrap", trace=True, tracer=tracer)
    argv, log = policy.wrap([str(cli), "exec"], {}, tmp_path / "ws", tmp_path / "agent")
    assert log == tmp_path / "agent" / "trace.strace"
    return argv


def test_strace_stands_inside_the_jail_and_ebpf_outside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = str(tmp_path / "cli/bin/codex")
    inside = _jailed("strace", tmp_path, monkeypatch)
    assert inside[0] != "/usr/bin/strace"  # the jail is outermost
    assert inside[inside.index("/usr/bin/strace") :][-3:] == ["--", cli, "exec"]
    outside = _jailed("ebpf", tmp_path, monkeypatch)
    log = str(tmp_path / "agent" / "trace.strace")
    assert outside[:6] == ["/opt/ebpf-trace", "-o", log, "--start", cli, "--"]
    assert "/opt/ebpf-trace" not in outside[6:]  # nothing of the loader runs in the jail
    assert outside[-2:] == [cli, "exec"]


def test_a_loader_per_run_that_does_not_start_leaves_the_attempt_its_own_loader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`AGENTIC_EVAL_EBPF_PER_RUN=1` with a loader that will not serve (here one that exits at
    once): the attempt gets the per-attempt form, which fails the way it always did, and no
    private directory of the loader is left behind."""
    monkeypatch.setenv(PER_RUN_ENV, "1")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    broken = tmp_path / "ebpf-trace"
    broken.write_text("#!/bin/sh\necho 'ebpf-trace: cannot load the program' >&2\nexit 70\n")
    broken.chmod(0o755)
    monkeypatch.setenv(EBPF_ENV, str(broken))
    argv = EbpfTracer().wrap(["/usr/bin/true"], tmp_path / "trace.strace", "/usr/bin/true")
    assert argv[:2] == [str(broken), "-o"]
    assert not list(tmp_path.glob("agentic-eval-ebpf-*"))
    with pytest.raises(OSError, match="cannot load the program"):
        SharedLoader(str(broken))
