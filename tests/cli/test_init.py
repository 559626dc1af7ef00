"""`agentic-eval init`: from a project holding only a skill folder to a first trusted result."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.cli.test_validate import run_cli
from tests.support import scratch_dir

SKILL_MD = """---
name: greeter
description: Greets people warmly in Latin when asked for a salutation. Use it for greetings.
---
# Greeter

When someone asks for a greeting, read references/latin.md and answer with the Latin
salutation it gives, in one short line.
"""
LATIN_MD = """# Latin greetings

Say salve to one person and salvete to several people, and vale when you say goodbye to them.
"""


def _project(root: Path, skill_dir: str) -> Path:
    skill = root / skill_dir
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    (skill / "references/latin.md").write_text(LATIN_MD)
    return skill


@pytest.fixture
def in_project(tmp_path: Path) -> Iterator[Path]:
    before = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(before)


def test_init_writes_a_repo_that_validates_and_explains(
    in_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(in_project, ".agents/skills/greeter")
    code, out, err = run_cli(["init", "--skill", ".agents/skills/greeter"], capsys)
    assert code == 0, err
    assert "wrote target greeter in agentic-evals/" in out
    assert "agentic-eval selftest --target greeter" in out
    target = yaml.safe_load((in_project / "agentic-evals/targets/greeter/target.yaml").read_text())
    assert target["entry_skill"] == ".agents/skills/greeter/SKILL.md"
    assert target["roots"] == [".agents/skills/greeter/references"]
    cases = sorted((in_project / "agentic-evals/targets/greeter/cases/basics").glob("greeter-*"))
    checked = [
        yaml.safe_load(c.read_text())["assert"]["required"][0]["checks"][0]["path"] for c in cases
    ]
    # The checks name files the skill really ships.
    assert sorted(checked) == [
        ".agents/skills/greeter/SKILL.md",
        ".agents/skills/greeter/references/latin.md",
    ]
    assert run_cli(["validate", "--target", "greeter"], capsys)[0] == 0
    code, out, _ = run_cli(["explain", "--target", "greeter", "--json"], capsys)
    assert code == 0
    entries = [e for case in json.loads(out)["cases"] for e in case["entries"]]
    assert len(entries) == 2 and all(e["decided_by"] == "checks" for e in entries)
    code, out, _ = run_cli(["explain", "--target", "greeter"], capsys)
    # Counted by what decides them, and each check as its author writes it.
    assert "2 entries decided by: structured checks 2, compiled rules 0" in out
    assert "2 of 2 without a model" in out and "decided by rules (0%)" not in out
    assert "check {kind: file_read, path: .agents/skills/greeter/SKILL.md}" in out


def test_init_points_a_skill_creator_author_at_the_evals_they_have(
    in_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = _project(in_project, "skills/greeter")
    code, out, _ = run_cli(["init", "--skill", "skills/greeter"], capsys)
    assert code == 0 and "evals.json" not in out
    (skill / "evals").mkdir()
    (skill / "evals/evals.json").write_text('{"evals": [{"prompt": "p"}]}')
    code, out, _ = run_cli(["init", "--skill", "skills/greeter", "--force"], capsys)
    assert code == 0
    assert "note: skills/greeter/evals/evals.json exists:" in out
    assert "`agentic-eval run --evals skills/greeter`" in out
    assert "`agentic-eval convert skills/greeter --out DIR`" in out


def test_init_refuses_an_existing_target_and_a_skill_outside_the_project(
    in_project: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(in_project, "skills/greeter")
    assert run_cli(["init", "--skill", "skills/greeter"], capsys)[0] == 0
    code, _, err = run_cli(["init", "--skill", "skills/greeter"], capsys)
    assert code == 2 and "a target of that name exists (pass --force" in err
    assert run_cli(["init", "--skill", "skills/greeter", "--force"], capsys)[0] == 0
    elsewhere = _project(tmp_path_factory.mktemp("elsewhere"), "greeter")
    code, _, err = run_cli(["init", "--skill", str(elsewhere)], capsys)
    assert code == 2 and "the skill must be inside the project" in err
    empty = in_project / "not-a-skill"
    empty.mkdir()
    code, _, err = run_cli(["init", "--skill", str(empty)], capsys)
    assert code == 2 and "no SKILL.md in this folder" in err


@pytest.mark.slow
@pytest.mark.codex
@pytest.mark.parametrize("skill_dir", [".agents/skills/greeter", "skills/greeter"])
def test_init_then_selftest_and_run_give_the_documented_results(
    in_project: Path, skill_dir: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The generated goldens are told apart by the real agent, and the good behaviours pass a
    run; a skill kept outside `.agents/skills/` is linked where Codex discovers skills."""
    _project(in_project, skill_dir)
    assert run_cli(["init", "--skill", skill_dir], capsys)[0] == 0
    with scratch_dir() as scratch:
        code, out, err = run_cli(
            ["selftest", "--target", "greeter", "--scratch-root", str(scratch), "--json"], capsys
        )
        assert code == 0, out + err
        report = json.loads(out)
        assert report["ok"] and len(report["goldens"]) == 4
        good = "agentic-evals/targets/greeter/behaviors/good"
        code, out, err = run_cli(
            ["run", "--target", "greeter", "--behaviors", good, "--scratch-root", str(scratch)],
            capsys,
        )
    assert code == 0, out + err
    assert "pass 2, fail 0, blocked 0" in out


@pytest.mark.slow
@pytest.mark.codex
def test_selftest_tells_a_golden_whose_step_failed_from_weak_assertions(
    in_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A good golden with a typo in its command fails its case: that is the behaviour's fault,
    shown with the failed step, not assertions that cannot tell good from bad."""
    _project(in_project, ".agents/skills/greeter")
    assert run_cli(["init", "--skill", ".agents/skills/greeter"], capsys)[0] == 0
    good = in_project / "agentic-evals/targets/greeter/behaviors/good/greeter-reads-latin.yaml"
    good.write_text(good.read_text().replace("references/latin.md", "references/latn.md"))
    with scratch_dir() as scratch:
        code, out, err = run_cli(
            ["selftest", "--target", "greeter", "--scratch-root", str(scratch)], capsys
        )
    assert code == 1, out + err
    assert "STEP FAILED" in out and "MISMATCH" not in out
    assert "did not do what they script" in out
    assert "references/latn.md` exited 1" in out
    assert "cases whose assertions do not separate" not in out
    reports = [p.read_text() for p in (in_project / "runs").glob("selftest-*/set-*/report.md")]
    (report,) = [r for r in reports if "latn.md" in r]
    assert "Tool calls that did not take effect:" in report
    (transcript,) = [
        p.read_text()
        for p in (in_project / "runs").glob("selftest-*/set-*/transcript.md")
        if "latn.md" in p.read_text()
    ]
    assert "exit 1, failed" in transcript


def test_init_on_a_skill_without_references_and_again_with_force(
    in_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = in_project / "solo"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: solo\ndescription: d\n---\n# Solo\nJust answer.\n")
    assert run_cli(["init", "--skill", "solo"], capsys)[0] == 0
    cases = in_project / "agentic-evals/targets/solo/cases/basics"
    assert sorted(p.stem for p in cases.glob("solo-*")) == [
        "solo-reads-most-of-the-skill",
        "solo-reads-skill",
    ]
    assert run_cli(["validate", "--target", "solo"], capsys)[0] == 0
    # A reference added later: --force regenerates, and nothing of the first run stays behind.
    (skill / "references").mkdir()
    (skill / "references/tips.md").write_text("# Tips\n\nAnswer in one line.\n")
    assert run_cli(["init", "--skill", "solo", "--force"], capsys)[0] == 0
    assert sorted(p.stem for p in cases.glob("solo-*")) == ["solo-reads-skill", "solo-reads-tips"]
    behaviors = in_project / "agentic-evals/targets/solo/behaviors/good"
    assert sorted(p.stem for p in behaviors.glob("*.yaml")) == [
        "solo-reads-skill",
        "solo-reads-tips",
    ]
    assert run_cli(["validate", "--target", "solo"], capsys)[0] == 0


def test_validate_checks_the_project_init_wrote_for(
    in_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A repo beside `skills/`: validate checks paths against the project, as run uses it."""
    _project(in_project, "skills/greeter")
    assert run_cli(["init", "--skill", "skills/greeter"], capsys)[0] == 0
    case = in_project / "agentic-evals/targets/greeter/cases/basics/greeter-reads-latin.yaml"
    case.write_text(case.read_text().replace("references/latin.md", "references/latn.md"))
    code, _, err = run_cli(["validate", "--target", "greeter"], capsys)
    assert code == 2 and "latn.md" in err


def test_init_makes_the_project_ignore_its_run_directories(
    in_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a `.gitignore` `init` writes one; with one it adds its line and keeps every line
    of the user's; one that already ignores `runs/` stays unchanged. Look-alikes (another folder
    named like it, a comment, a later negation) do not count as ignoring it."""
    _project(in_project, "skills/greeter")
    code, out, err = run_cli(["init", "--skill", "skills/greeter"], capsys)
    assert code == 0, err
    assert "wrote .gitignore ignoring /runs/" in out
    assert (in_project / ".gitignore").read_text().splitlines()[-1] == "/runs/"
    # again: nothing added twice
    assert run_cli(["init", "--skill", "skills/greeter", "--force"], capsys)[0] == 0
    assert (in_project / ".gitignore").read_text().count("/runs/") == 1
    for kept in ("node_modules/\nruns\n", "dist/\n/runs/*\n"):
        (in_project / ".gitignore").write_text(kept)
        code, out, _ = run_cli(["init", "--skill", "skills/greeter", "--force"], capsys)
        assert code == 0 and ".gitignore already ignores runs/" in out
        assert (in_project / ".gitignore").read_text() == kept
    for user in ("node_modules/\nruns-old/\n# runs/", "runs/\n!runs/\n", "*.log"):
        (in_project / ".gitignore").write_text(user)
        code, out, _ = run_cli(["init", "--skill", "skills/greeter", "--force"], capsys)
        assert code == 0 and "added /runs/ to .gitignore" in out
        text = (in_project / ".gitignore").read_text()
        assert text.splitlines()[: len(user.splitlines())] == user.splitlines()
        assert text.endswith("\n/runs/\n") and text.startswith(user)
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(in_project)], check=True)
        (in_project / "runs/r1").mkdir(parents=True)
        (in_project / "runs/r1/manifest.json").write_text("{}")
        ignored = subprocess.run(
            ["git", "-C", str(in_project), "check-ignore", "-q", "runs/r1/manifest.json"],
            check=False,
        )
        assert ignored.returncode == 0  # git itself ignores what the line was written for


@pytest.mark.codex
def test_selftest_exits_3_when_an_outage_blocks_a_golden(
    in_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A good golden whose model answers HTTP 500 (an outage, as `run` and `score` call it) got
    no verdict: selftest said its assertions do not separate the goldens (exit 1); it is the
    machine's error, exit 3 with the same line as `run`. The other goldens are judged as ever."""
    _project(in_project, ".agents/skills/greeter")
    assert run_cli(["init", "--skill", ".agents/skills/greeter"], capsys)[0] == 0
    good = in_project / "agentic-evals/targets/greeter/behaviors/good/greeter-reads-latin.yaml"
    data = yaml.safe_load(good.read_text())
    data["steps"] = [{"http_error": 500}]
    good.write_text(yaml.safe_dump(data))
    with scratch_dir() as scratch:
        code, out, err = run_cli(
            ["selftest", "--target", "greeter", "--scratch-root", str(scratch), "--json"], capsys
        )
        assert code == 3, out + err
        report = json.loads(out)
        (outage,) = [g for g in report["goldens"] if g["outage"]]
        assert outage["behavior"] == "behaviors/good/greeter-reads-latin.yaml"
        assert outage["status"] == "blocked" and report["exit_code"] == 3
        assert [g["outage"] for g in report["goldens"]].count(False) == 3
        code, out, err = run_cli(
            ["selftest", "--target", "greeter", "--scratch-root", str(scratch)], capsys
        )
    assert code == 3, out + err
    assert (
        "exit 3: the agent's model or tooling failed on 1 golden behaviour(s), which got no"
        " verdict: greeter-reads-latin (behaviors/good/greeter-reads-latin.yaml)" in out
    )
