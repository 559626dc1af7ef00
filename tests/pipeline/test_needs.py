"""A case's `needs`: the programs and Python distributions its agent must find, looked up in the
attempt's own jail before the agent starts. A missing one is `blocked (environment)`, the eval's,
with no agent run; a present one that fails is not missing."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from evaluator.artifacts.attribution import attempt_blame
from evaluator.artifacts.models import AttemptRecord
from evaluator.cli.main import main
from evaluator.contract.digest import case_digest
from evaluator.contract.models import Case, Needs
from evaluator.pipeline.needs import check_needs
from evaluator.pipeline.rejudge import rejudge_run
from evaluator.pipeline.run import RunOutcome
from evaluator.repo.evals_json import load_evals_json
from evaluator.repo.loader import load_repo
from evaluator.sandbox import LaunchPolicy
from tests.support import agent_or_skip, layers_or_skip, run_scripted_repo

ABSENT = "agentic-eval-no-such-program"
SKILL = ".agents/skills/tidy"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def _program(directory: Path, name: str, body: str) -> Path:
    path = directory / name
    _write(path, f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _case_yaml(case_id: str, needs: str, prompt: str) -> str:
    return f"""\
        case_id: "{case_id}"
        title: "{case_id}"
        timeout_s: 120
        {needs}
        input: {{user_prompt: "{prompt}"}}
        assert:
          required:
            - description: "The tidy script ran."
              checks:
                - kind: command_ran
                  pattern: "scripts/tidy.sh"
          forbidden: []
        """


def _eval_repo(root: Path, cases: dict[str, tuple[str, str]]) -> tuple[Path, Path, Path]:
    """`cases`: case id -> (its `needs:` line, its prompt)."""
    source = root / "source"
    _write(source / SKILL / "SKILL.md", "---\nname: tidy\ndescription: Tidies.\n---\nRun it.\n")
    _write(source / SKILL / "scripts/tidy.sh", "#!/bin/sh\necho tidy\n")
    repo = root / "agentic-evals"
    target = repo / "targets/tidy"
    _write(
        target / "target.yaml",
        f"""\
        target_id: "tidy"
        entry_skill: "{SKILL}/SKILL.md"
        roots: ["{SKILL}"]
        default_suites: ["use"]
        needs: {{programs: [sh]}}
        """,
    )
    listed = "".join(f'  - "targets/tidy/cases/use/{c}.yaml"\n' for c in cases)
    _write(
        target / "cases/use/suite.yaml",
        f'suite_id: "use"\nneeds: {{python: ["pip"]}}\ncases:\n{listed}',
    )
    for case_id, (needs, prompt) in cases.items():
        _write(target / f"cases/use/{case_id}.yaml", _case_yaml(case_id, needs, prompt))
    behaviors = root / "behaviors"
    behaviors.mkdir()
    for case_id, (_, prompt) in cases.items():
        steps = [{"cmd": f"sh {SKILL}/scripts/tidy.sh"}, {"final": "Tidied."}]
        (behaviors / f"{case_id}.yaml").write_text(
            json.dumps({"name": case_id, "match": {"prompt_contains": prompt}, "steps": steps})
        )
    return repo, source, behaviors


# --------------------------------------------------------------------------- the fact


def test_needs_are_bare_program_names_and_checkable_requirements() -> None:
    assert Needs(programs=["soffice", "dot"], python=["mcp>=1.2"]).stated() == [
        "program soffice",
        "program dot",
        "python mcp>=1.2",
    ]
    for bad in (
        {"programs": ["/usr/bin/dot"]},
        {"programs": ["dot -V"]},
        {"python": ["mcp[cli]>=1.2"]},  # an extra: not checkable by a version lookup
        {"python": ["pywin32; sys_platform == 'win32'"]},
        {"python": [">=1.2"]},
        {"pythons": ["mcp"]},
    ):
        with pytest.raises(ValidationError):
            Needs.model_validate(bad)


def test_a_target_s_a_suite_s_and_a_case_s_needs_add_up(tmp_path: Path) -> None:
    repo, source, _ = _eval_repo(
        tmp_path,
        {
            "plain": ("", "Tidy up."),
            "office": ("needs: {programs: [soffice, sh], python: ['openpyxl>=3']}", "Tidy xlsx."),
        },
    )
    loaded, diagnostics = load_repo(repo, source)
    assert not diagnostics.errors, [e.render() for e in diagnostics.errors]
    assert loaded is not None
    cases = {c.case_id: c for c in loaded.targets["tidy"].all_cases()}
    assert cases["plain"].needs.stated() == ["program sh", "python pip"]
    assert cases["office"].needs.stated() == [
        "program sh",
        "program soffice",
        "python pip",
        "python openpyxl>=3",
    ]


def test_a_case_without_needs_keeps_its_digest() -> None:
    fields = {
        "case_id": "c",
        "title": "t",
        "input": {"user_prompt": "p"},
        "assert": {"required": [{"description": "d"}]},
    }
    plain = Case.model_validate(fields)
    # This case's digest before `needs` existed (main at c327e98).
    assert case_digest(plain) == (
        "sha256:6a1b9fb5bb75ffbe54f5beac477d7227f4536db03a7a33a00ea30b62f5d33ef1"
    )
    assert case_digest(Case.model_validate({**fields, "needs": {"programs": ["dot"]}})) != (
        case_digest(plain)
    )


def test_a_renamed_case_keeps_its_definition_digest() -> None:
    """`definition_digest` (`case_digest(with_id=False)`) is how compare follows a rename: the
    same for a new id, different for any other change."""
    fields = {
        "case_id": "c",
        "title": "t",
        "input": {"user_prompt": "p"},
        "assert": {"required": [{"description": "d"}]},
    }
    plain = Case.model_validate(fields)
    renamed = Case.model_validate({**fields, "case_id": "c2"})
    assert case_digest(renamed) != case_digest(plain)
    assert case_digest(renamed, with_id=False) == case_digest(plain, with_id=False)
    edited = Case.model_validate({**fields, "case_id": "c2", "input": {"user_prompt": "q"}})
    assert case_digest(edited, with_id=False) != case_digest(plain, with_id=False)


def test_skill_creator_evals_state_needs_at_the_top_and_per_eval(tmp_path: Path) -> None:
    skill = tmp_path / "tidy"
    _write(skill / "SKILL.md", "---\nname: tidy\ndescription: Tidies.\n---\nRun it.\n")
    evals: dict[str, Any] = {
        "skill_name": "tidy",
        "needs": {"programs": ["dot"]},
        "evals": [
            {"id": 1, "prompt": "a", "expectations": ["x"], "needs": {"python": ["mcp>=1.2"]}},
            {"id": 2, "prompt": "b", "expectations": ["x"]},
        ],
    }
    _write(skill / "evals/evals.json", json.dumps(evals))
    repo, diagnostics = load_evals_json(skill / "evals/evals.json")
    assert not diagnostics.errors, [e.render() for e in diagnostics.errors]
    assert repo is not None
    needs = {c.case_id: c.needs.stated() for c in repo.targets["tidy"].all_cases()}
    assert needs == {"eval-1": ["program dot", "python mcp>=1.2"], "eval-2": ["program dot"]}
    evals["evals"][1]["needs"] = {"programs": ["dot -Tsvg"]}
    _write(skill / "evals/evals.json", json.dumps(evals))
    _, diagnostics = load_evals_json(skill / "evals/evals.json")
    (error,) = diagnostics.errors
    assert "evals[1].needs: programs.0: String should match pattern" in error.render()


def test_a_block_for_unmet_needs_is_the_eval_s() -> None:
    record = AttemptRecord(
        attempt=1,
        workspace_root="/w",
        valid=True,
        status="blocked",
        blocked_reason="environment",
        unmet_needs=["program 'soffice' is not on the agent's PATH"],
    )
    blame = attempt_blame(record)
    assert (blame.side, blame.cause) == ("eval", "environment")
    # The same record without the fact: an agent that never started is an outage.
    assert attempt_blame(record.model_copy(update={"unmet_needs": None})).side == "outage"


# --------------------------------------------------------------------------- the lookup


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "bin"
    directory.mkdir()
    _program(directory, "broken-tool", "exit 3")  # present, but fails: not missing
    return directory


def _policy(jail: str, hidden: tuple[Path, ...]) -> LaunchPolicy:
    if jail == "none":
        return LaunchPolicy()
    layers_or_skip(jail=True)
    return LaunchPolicy(jail=jail, hidden=hidden)


@pytest.mark.parametrize("jail", ["none", "bwrap"])
def test_the_lookup_names_what_is_missing_and_never_runs_a_program(
    jail: str, bin_dir: Path, tmp_path: Path
) -> None:
    # The run hides its scratch root; a PATH entry under it is bound back, as for the agent.
    policy = _policy(jail, (tmp_path,))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    path = f"{bin_dir}:{os.environ.get('PATH', os.defpath)}"
    needs = Needs(
        programs=["sh", "broken-tool", ABSENT], python=["pip>=1", "pip<1", "no-such-dist-xyz"]
    )
    found = check_needs(needs, policy, workspace, {"PATH": path})
    assert found.problem is None
    assert len(found.missing) == 3, found.missing
    assert found.missing[0] == f"program '{ABSENT}' is not on the agent's PATH"
    assert re.fullmatch(r"python 'pip' is [0-9][0-9.]*, not <1", found.missing[1])
    assert found.missing[2] == "python 'no-such-dist-xyz' is not installed for python3"
    # Without python3 on the agent's PATH, its distributions are missing, said once.
    bare = check_needs(Needs(python=["pip"]), policy, workspace, {"PATH": str(bin_dir)})
    assert bare.missing == ["python3 is not on the agent's PATH (needed for pip)"]
    assert check_needs(Needs(programs=["sh"]), policy, workspace, {}).missing == []


@pytest.mark.parametrize("jail", ["none", "bwrap"])
def test_python_names_the_version_of_the_agent_s_python3_itself(
    jail: str, bin_dir: Path, tmp_path: Path
) -> None:
    """`needs: {python: ["python>=3.11"]}`: the interpreter's version, read by the same probe
    (no distribution is named `python`; it was "not installed" before). The look-alike: a
    distribution's requirement is still its installed version."""
    policy = _policy(jail, (tmp_path,))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = {"PATH": f"{bin_dir}:{os.environ.get('PATH', os.defpath)}"}
    ours = check_needs(Needs(python=["python>=3.8", "Python<99"]), policy, workspace, env)
    assert ours.problem is None and ours.missing == []
    newer = check_needs(Needs(python=["python>=99", "pip<1"]), policy, workspace, env)
    assert len(newer.missing) == 2, newer.missing
    assert re.fullmatch(r"python3 is 3\.[0-9]+\.[0-9]+\S*, not >=99", newer.missing[0])
    assert re.fullmatch(r"python 'pip' is [0-9][0-9.]*, not <1", newer.missing[1])


def test_the_agent_s_view_decides_not_the_host_s(bin_dir: Path, tmp_path: Path) -> None:
    """A PATH entry in the evaluator's /tmp: the host finds the program there, the agent's jail
    (its own private /tmp) does not, and neither does the lookup."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    needs = Needs(programs=["broken-tool"])
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    assert str(bin_dir).startswith("/tmp/")
    assert check_needs(needs, LaunchPolicy(), workspace, env).missing == []
    jailed = _policy("bwrap", ())
    assert check_needs(needs, jailed, workspace, env).missing == [
        "program 'broken-tool' is not on the agent's PATH"
    ]


# --------------------------------------------------------------------------- validate, explain


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_validate_and_explain_show_the_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, source, _ = _eval_repo(
        tmp_path, {"office": (f"needs: {{programs: [{ABSENT}]}}", "Tidy xlsx.")}
    )
    code, out, err = _cli(
        ["validate", "--repo", str(repo), "--source-workspace", str(source)], capsys
    )
    assert code == 0, err
    assert (
        f"needs: tidy/use/office: program sh, program {ABSENT}, python pip;"
        f" missing here: program '{ABSENT}' is not on the agent's PATH"
    ) in out
    code, out, err = _cli(
        ["validate", "--json", "--repo", str(repo), "--source-workspace", str(source)], capsys
    )
    (item,) = json.loads(out)["needs"]
    assert item["missing_here"] == [f"program '{ABSENT}' is not on the agent's PATH"]
    code, out, err = _cli(
        ["explain", "--repo", str(repo), "--source-workspace", str(source)], capsys
    )
    assert code == 0, err
    assert f"  needs: program sh, program {ABSENT}, python pip (looked up" in out


def test_an_in_session_attempt_of_a_case_with_unmet_needs_is_blocked_with_nothing_to_spawn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`attempt new` has no jail of ours: the sub-agent runs where the command does, so the
    needs are looked up there. A missing one records the attempt blocked (environment), the
    eval's, and prints no prompt; a case whose needs are met gets its workspace and prompt."""
    repo, source, _ = _eval_repo(
        tmp_path,
        {
            "office": (f"needs: {{programs: [{ABSENT}]}}", "Tidy xlsx."),
            "plain": ("needs: {programs: [sh]}", "Tidy it."),
        },
    )
    common = ["--repo", str(repo), "--source-workspace", str(source), "--run-id", "r"]
    common += ["--runs-dir", str(tmp_path / "runs"), "--case-workspace-root", str(tmp_path / "ws")]
    code, out, err = _cli(["attempt", "new", "office", *common, "--json"], capsys)
    assert code == 0, err
    made = json.loads(out)
    assert made["blocked"] == "environment" and "prompt" not in made
    assert made["unmet_needs"] == [f"program '{ABSENT}' is not on the agent's PATH"]
    run = tmp_path / "runs/r"
    result = json.loads((run / "case-results/office.json").read_text())
    assert (result["status"], result["blocked_reason"]) == ("blocked", "environment")
    assert result["blocked_by"] == "eval"
    attempt = json.loads(
        (run / "case-artifacts/office/attempts/attempt-01/attempt.json").read_text()
    )
    assert attempt["unmet_needs"] == made["unmet_needs"]
    assert not (run / "case-artifacts/office/attempts/attempt-01/pending.json").exists()
    code, out, err = _cli(["attempt", "new", "plain", *common], capsys)
    assert code == 0, err
    assert "prompt (spawn the sub-agent with exactly this message):" in out
    assert "Tidy it." in out


def test_an_in_session_attempt_whose_setup_is_not_reproduced_spawns_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A spawned sub-agent gets no environment, and a free-form setup key is nothing we can
    reproduce: as `run` does, the attempt is recorded blocked (environment), the eval's, with
    each part named, and no prompt is printed. Before, both printed a prompt to spawn."""
    repo, source, _ = _eval_repo(
        tmp_path,
        {
            "env": ("setup: {env: {GREETING: hi}}", "Greet."),
            "freeform": ("setup: {database: postgres-15}", "Migrate."),
        },
    )
    common = ["--repo", str(repo), "--source-workspace", str(source), "--run-id", "r"]
    common += ["--runs-dir", str(tmp_path / "runs"), "--case-workspace-root", str(tmp_path / "ws")]
    run = tmp_path / "runs/r"
    for case_id, named in (
        ("env", "a sub-agent spawned in session cannot be given environment variables"),
        ("freeform", "database"),
    ):
        code, out, err = _cli(["attempt", "new", case_id, *common, "--json"], capsys)
        assert code == 0, err
        made = json.loads(out)
        assert made["blocked"] == "environment" and "prompt" not in made, made
        assert any(n.startswith("setup: ") and named in n for n in made["unmet_needs"]), made
        result = json.loads((run / f"case-results/{case_id}.json").read_text())
        assert (result["status"], result["blocked_reason"]) == ("blocked", "environment")
        assert result["blocked_by"] == "eval"
        attempt = run / f"case-artifacts/{case_id}/attempts/attempt-01"
        assert not (attempt / "pending.json").exists()
        assert "its setup is not reproduced here" in (attempt / "attempt.json").read_text()


# --------------------------------------------------------------------------- real agents


@pytest.fixture(
    scope="module",
    params=[
        pytest.param("codex", marks=pytest.mark.codex),
        pytest.param("claude", marks=pytest.mark.claude),
    ],
)
def outcome(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunOutcome]:
    agent = str(request.param)
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    root = tmp_path_factory.mktemp(f"needs-{agent}")
    repo, source, behaviors = _eval_repo(
        root,
        {
            "absent": (f"needs: {{programs: [{ABSENT}]}}", "Tidy the absent way."),
            "present": ("needs: {programs: [git, python3]}", "Tidy the present way."),
        },
    )
    yield run_scripted_repo(repo, source, behaviors, root / "runs", runner)
    shutil.rmtree(root, ignore_errors=True)


def _attempt(outcome: RunOutcome, case_id: str) -> dict[str, Any]:
    path = outcome.run_dir.path / f"case-artifacts/{case_id}/attempts/attempt-01/attempt.json"
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_a_case_needing_an_absent_program_is_blocked_without_an_agent_run(
    outcome: RunOutcome,
) -> None:
    results = {r.case_id: r for r in outcome.results}
    absent = results["absent"]
    assert (absent.status, absent.blocked_reason) == ("blocked", "environment")
    assert (absent.blocked_by, absent.blocked_cause) == ("eval", "environment")
    attempt = _attempt(outcome, "absent")
    assert attempt["unmet_needs"] == [f"program '{ABSENT}' is not on the agent's PATH"]
    assert ABSENT in attempt["reason"]
    # No agent ran: no session, no thread, no agent output.
    assert attempt["thread_id"] is None and attempt["session_path"] is None
    assert attempt["exit_code"] is None and attempt["duration_s"] is None
    artifacts = outcome.run_dir.path / "case-artifacts/absent/attempts/attempt-01"
    assert not (artifacts / "agent-stdout.jsonl").exists()
    assert not (artifacts / "accepted-session.jsonl").exists()
    assert len(absent.attempts) == 1  # not retried


def test_a_judgement_again_keeps_the_block_the_eval_s(outcome: RunOutcome, tmp_path: Path) -> None:
    copy = tmp_path / "run"
    shutil.copytree(outcome.run_dir.path, copy)
    results = {r.case_id: r for r in rejudge_run(copy)}
    absent = results["absent"]
    assert (absent.status, absent.blocked_by, absent.blocked_cause) == (
        "blocked",
        "eval",
        "environment",
    )
    assert absent.attempts[0].unmet_needs == [f"program '{ABSENT}' is not on the agent's PATH"]
    assert results["present"].status == "pass"


def test_a_case_needing_present_programs_runs_and_passes(outcome: RunOutcome) -> None:
    present = {r.case_id: r for r in outcome.results}["present"]
    attempt = _attempt(outcome, "present")
    assert attempt["unmet_needs"] is None
    assert attempt["thread_id"]
    assert present.status == "pass", present.notes
