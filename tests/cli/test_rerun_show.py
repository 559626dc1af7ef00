"""`run --rerun-failed RUN` runs again only what failed or was blocked, on that run's target and
agent; `show RUN [CASE]` prints a run's results in the terminal. newuser8: neither existed (a
`jq` recipe in docs/cli.md stood in for the first)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_validate import run_cli
from tests.conftest import ROOT, copy_demo
from tests.support import claude_or_skip, codex_or_skip, scratch_dir

BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"
PASSES = "routing-add-column"
BLOCKED = "bootstrap-needs-database-url"  # DATABASE_URL unset: blocked, no agent started


@pytest.mark.claude
def test_rerun_failed_takes_the_runs_failures_and_agent_and_show_prints_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    claude_or_skip()
    monkeypatch.delenv("DATABASE_URL", raising=False)
    repo = copy_demo(tmp_path)
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        base = ["run", "--repo", str(repo), "--runs-dir", str(runs), "--scratch-root", str(scratch)]
        base += ["--behaviors", str(BEHAVIORS)]
        code, _, err = run_cli(
            [*base, "--agent", "claude-code", "--case", PASSES, "--case", BLOCKED, "--run-id", "a"],
            capsys,
        )
        assert code == 1, err
        # No --agent: the run's own (claude-code), only its blocked case.
        code, _, err = run_cli([*base, "--rerun-failed", "a", "--run-id", "b"], capsys)
        assert code == 1, err
        assert f"rerunning 1 case(s) of run a that failed or were blocked: {BLOCKED}" in err
        manifest = json.loads((runs / "b/manifest.json").read_text())
        assert manifest["resolved_case_ids"] == [BLOCKED]
        assert (manifest["agent"], manifest["target_id"]) == ("claude-code", "db-migrations")
        # No --behaviors: the run's own scripted model (its behaviours), as for the agent.
        bare = [a for a in base if a not in ("--behaviors", str(BEHAVIORS))]
        code, _, err = run_cli([*bare, "--rerun-failed", "a", "--run-id", "b2"], capsys)
        assert code == 1, err
        carried = json.loads((runs / "b2/manifest.json").read_text())
        assert carried["behaviors_dir"] == str(BEHAVIORS.resolve()), carried
        assert carried["model"] == manifest["model"]
        # A run directory works as well as an id; --agent overrides the run's.
        code, _, err = run_cli(
            [*base, "--rerun-failed", str(runs / "a"), "--agent", "codex", "--run-id", "c"],
            capsys,
        )
        assert json.loads((runs / "c/manifest.json").read_text())["agent"] == "codex-exec"
        # A run with nothing that failed: nothing runs, exit 0, no run made.
        code, _, err = run_cli(
            [*base, "--agent", "claude-code", "--case", PASSES, "--run-id", "ok"], capsys
        )
        assert code == 0, err
        code, out, err = run_cli([*base, "--rerun-failed", "ok", "--run-id", "d"], capsys)
        assert code == 0 and "nothing to rerun: no case of run ok failed or was blocked" in out
        assert not (runs / "d").exists()
        # Its cases come from the run: --case with it is a usage error.
        code, _, err = run_cli([*base, "--rerun-failed", "a", "--case", PASSES], capsys)
        assert code == 2 and "--rerun-failed takes its cases from the run it names" in err
        code, _, err = run_cli([*base, "--rerun-failed", "nope"], capsys)
        assert code == 2 and "no run 'nope'" in err and "Traceback" not in err
    code, out, err = run_cli(["show", "a", "--runs-dir", str(runs)], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("run a: target db-migrations, agent claude-code, completed;")
    assert lines[1:] == [f"  {BLOCKED}: blocked (environment)", f"  {PASSES}: pass"] or lines[
        1:
    ] == [f"  {PASSES}: pass", f"  {BLOCKED}: blocked (environment)"]
    code, out, err = run_cli(["show", str(runs / "a"), BLOCKED], capsys)
    assert code == 0, err
    assert out.startswith(f"{BLOCKED}: blocked (environment)\n")
    assert "  setup mismatch: env_vars_required: DATABASE_URL is not set in the environment" in out
    assert "    01: blocked (environment) (the agent was not started" in out
    assert f"    {runs / 'a'}/case-results/{BLOCKED}.json" in out
    code, out, err = run_cli(["show", "a", PASSES, "--runs-dir", str(runs)], capsys)
    assert code == 0 and out.startswith(f"{PASSES}: pass\n"), err
    assert "    pass [checks] required[0]: The add-column reference was consulted." in out
    assert "final-answer.txt" in out
    code, _, err = run_cli(["show", "a", "no-such-case", "--runs-dir", str(runs)], capsys)
    assert code == 2 and "run a has no result for case 'no-such-case'" in err


@pytest.mark.codex
def test_rerun_failed_judges_as_the_run_did_unless_a_judge_option_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The judge options are recorded in the manifest and carried like the model: before
    round 20 a rerun of a `--judge rules` run judged with the default chain (`auto`)."""
    codex_or_skip()
    monkeypatch.delenv("DATABASE_URL", raising=False)
    repo = copy_demo(tmp_path)
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        base = ["run", "--repo", str(repo), "--runs-dir", str(runs), "--scratch-root", str(scratch)]
        base += ["--behaviors", str(BEHAVIORS)]
        code, _, err = run_cli(
            [*base, "--case", BLOCKED, "--judge", "rules", "--run-id", "a"], capsys
        )
        assert code == 1, err

        def judge_of(run_id: str) -> object:
            return json.loads((runs / run_id / "manifest.json").read_text())["judge"]

        assert judge_of("a") == {
            "mode": "rules",
            "model": None,
            "agent": None,
            "votes": None,
            "base_url": None,
            "api_key_env": None,
        }
        code, _, err = run_cli([*base, "--rerun-failed", "a", "--run-id", "b"], capsys)
        assert code == 1, err
        assert judge_of("b") == judge_of("a")
        # Named, even as the default, the user's option wins.
        code, _, err = run_cli(
            [*base, "--rerun-failed", "a", "--judge", "auto", "--run-id", "c"], capsys
        )
        assert code == 1, err
        assert judge_of("c")["mode"] == "auto"  # type: ignore[index]


@pytest.mark.codex
def test_every_command_that_judges_records_its_judge_for_rerun_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before round 21 only `run` recorded the judge: a rerun of an `evaluate` variant's run or of
    a `score` run judged with the default chain (`auto`) after a `--judge rules` run, and a rerun
    of a `selftest` run with whatever judge the user's options named, though a golden's status
    is the rules' alone."""
    codex_or_skip()
    monkeypatch.delenv("DATABASE_URL", raising=False)
    repo = copy_demo(tmp_path)
    runs = tmp_path / "runs"

    def judge_of(run_dir: Path) -> object:
        return json.loads((run_dir / "manifest.json").read_text())["judge"]

    with scratch_dir() as scratch:
        where = ["--repo", str(repo), "--runs-dir", str(runs), "--scratch-root", str(scratch)]
        scripted = [*where, "--behaviors", str(BEHAVIORS), "--case", BLOCKED]
        rules = {"mode": "rules", **dict.fromkeys(("model", "agent", "votes"), None)}
        rules |= {"base_url": None, "api_key_env": None}
        code, _, err = run_cli(
            ["evaluate", *scripted, "--judge", "rules", "--run-id", "ev"], capsys
        )
        assert code == 1, err  # nothing compared: the case is blocked under both variants
        code, out, err = run_cli(["score", *scripted, "--judge", "rules", "--run-id", "sc"], capsys)
        assert code == 3 and "VERDICT: " in out, err  # nothing judged: no score
        code, _, err = run_cli(["selftest", *where, "--case", BLOCKED, "--json"], capsys)
        assert code == 0, err
        sets = sorted(m.parent for m in runs.glob("selftest-*/set-*/manifest.json"))
        assert sets, err  # one run per behaviour set
        made = {
            "evaluate": runs / "ev/variants/with_skill/run",
            "score": runs / "sc",
            **{f"selftest-{run.name}": run for run in sets},
        }
        for command, run_dir in made.items():
            assert judge_of(run_dir) == rules, command
            rerun = f"re-{command}"
            code, _, err = run_cli(
                ["run", *where, "--rerun-failed", str(run_dir), "--run-id", rerun], capsys
            )
            assert code == 1 and "rerunning 1 case(s) of run" in err, err
            assert judge_of(runs / rerun) == rules, command
