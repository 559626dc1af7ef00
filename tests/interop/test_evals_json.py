"""skill-creator `evals.json` read as it is: every public shape loads into the repo model, bad
input is one located line, `files` land at their relative paths, typed assertions become
checks (`command` runs after the agent), and `convert` writes the equivalent YAML repo."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from evaluator.artifacts.redact import Redactor
from evaluator.cli.main import main
from evaluator.contract.models import (
    CommandCheck,
    NotCheck,
    WorkspaceFileContainsCheck,
    WorkspaceFileExistsCheck,
)
from evaluator.evidence import SessionEvidence
from evaluator.grader.prompt import judge_prompt
from evaluator.judge import JudgeContext
from evaluator.judge.base import CommandOutcome, CommandTrace
from evaluator.judge.chain import pending_entries, plan_entries
from evaluator.judge.checks.command import OUTPUT_LIMIT, command, machine_failure
from evaluator.judge.graded import grade_item
from evaluator.judge.verdict import CheckVerdict
from evaluator.pipeline.commands import JailedCommands, rejudge_commands
from evaluator.plan import open_repo, select_cases
from evaluator.repo import EvalRepo, load_repo
from evaluator.repo.evals_json import missing_programs
from evaluator.sandbox import LaunchPolicy
from evaluator.sandbox.registry import get_jail
from evaluator.sandbox.tracer import Tracer
from evaluator.workspace import build_workspace
from evaluator.workspace.provenance import skill_digest
from tests.conftest import ROOT
from tests.support import scratch_dir, tracer_under_test

SUITES = ROOT.parent / "shared/fixtures/public-suites"
UPSTREAM = ROOT / "tests/fixtures/upstream/agentic-evals"
needs_suites = pytest.mark.skipif(not SUITES.is_dir(), reason=f"no public suites at {SUITES}")

# Written from each file's PROVENANCE.md before the loader existed: what every suite must give.
# suite dir: (evals path, target, mounted skill, cases, typed checks by kind, prose entries)
PUBLIC = {
    "confluentinc__agent-skills__flink-udf": (
        "upstream/skills/flink-udf/evals/evals.json",
        "flink-udf",
        "flink-udf",
        8,
        {"workspace_file_exists": 17, "workspace_file_contains": 43, "not": 3, "command": 40},
        0,
    ),
    "confluentinc__agent-skills__developing-kafka-python-client": (
        "upstream/skills/developing-kafka-python-client/evals/evals.json",
        "developing-kafka-python-client",
        "developing-kafka-python-client",
        9,
        {"workspace_file_exists": 40, "workspace_file_contains": 60, "not": 3, "command": 8},
        0,
    ),
    "AvdLee__Xcode-Disk-Cleanup-Agent-Skill__xcode-disk-cleanup": (
        "upstream/evals/evals.json",
        "xcode-disk-cleanup",
        "xcode-disk-cleanup",
        4,
        {},
        16,
    ),
    "dalberto__imessage-history-skill__imessage-history": (
        "upstream/evals/evals.json",
        "imessage-history",
        "imessage-history",
        3,
        {},
        12,
    ),
}


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def load(path: Path, skill: Path | None = None) -> EvalRepo:
    repo, diagnostics = load_repo(path, skill)
    assert not diagnostics.errors, [e.render() for e in diagnostics.errors]
    assert repo is not None
    return repo


def skill(tmp_path: Path, evals: object, name: str = "demo-skill") -> Path:
    folder = tmp_path / name
    (folder / "evals").mkdir(parents=True)
    (folder / "references").mkdir()
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\nBody.\n")
    (folder / "references/guide.md").write_text("guide\n")
    text = evals if isinstance(evals, str) else json.dumps(evals, indent=2)
    (folder / "evals/evals.json").write_text(text)
    return folder


@needs_suites
@pytest.mark.parametrize("suite", sorted(PUBLIC))
def test_every_public_suite_loads_in_place(suite: str) -> None:
    evals, target_id, mounted, cases, kinds, prose = PUBLIC[suite]
    repo = load(SUITES / suite / evals)
    target = repo.targets[target_id]
    assert target.target.entry_skill == f".agents/skills/{mounted}/SKILL.md"
    assert len(target.all_cases()) == cases
    found: Counter[str] = Counter()
    prose_found = 0
    for case in target.all_cases():
        for entry in case.case.assertions.required:
            if entry.checks:
                found.update(check.kind for check in entry.checks)
            else:
                assert entry.pass_criteria == [entry.description]
                prose_found += 1
        assert case.case.input.user_prompt.strip()
    assert dict(found) == kinds and prose_found == prose
    # the evals never reach a workspace; the skill's own files do
    assert target.skill_files is not None
    assert not any("evals" in f.split("/") for f in target.skill_files)
    assert f".agents/skills/{mounted}/SKILL.md" in target.skill_files


@needs_suites
def test_prompts_and_expected_outputs_are_verbatim() -> None:
    suite = "confluentinc__agent-skills__developing-kafka-python-client"
    path = SUITES / suite / PUBLIC[suite][0]
    raw = json.loads(path.read_text())["evals"]
    target = load(path).targets["developing-kafka-python-client"]
    by_id = {case.case_id: case.case for case in target.all_cases()}
    for item in raw:
        case = by_id[f"eval-{item['id']}"]
        assert case.input.user_prompt == item["prompt"]
        assert case.expected_output == item["expected_output"]
    # eval 7's inline file is written into the workspace as given
    inline = by_id["eval-7"].setup.write_files
    assert inline is not None and [w.path for w in inline] == ["app/kafka_producer.py"]
    assert inline[0].content == raw[7]["files"][0]["content"]


@needs_suites
def test_a_skill_folder_and_a_repo_level_evals_folder_are_found() -> None:
    kafka = SUITES / "confluentinc__agent-skills__developing-kafka-python-client/upstream/skills"
    by_folder = load(kafka / "developing-kafka-python-client")  # `--evals DIR`
    assert list(by_folder.targets) == ["developing-kafka-python-client"]
    xcode = SUITES / "AvdLee__Xcode-Disk-Cleanup-Agent-Skill__xcode-disk-cleanup/upstream"
    beside = load(xcode / "evals/evals.json").targets["xcode-disk-cleanup"]
    assert beside.skill_mount is not None
    assert beside.skill_mount.origin == (xcode / "xcode-disk-cleanup").resolve()
    imessage = SUITES / "dalberto__imessage-history-skill__imessage-history/upstream"
    root = load(imessage / "evals/evals.json").targets["imessage-history"]
    # the repo root is the skill; its name is SKILL.md's, not the folder's
    assert root.skill_mount is not None and root.skill_mount.at == ".agents/skills/imessage-history"
    assert ".agents/skills/imessage-history/evals" not in root.target.roots


def test_an_unknown_key_is_one_located_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = skill(
        tmp_path,
        '{\n  "skill_name": "demo-skill",\n  "evals": [\n    {"id": 1, "prompt": "p",\n'
        '     "expectations": ["x"], "colour": "red"}\n  ]\n}\n',
    )
    code, _, err = run_cli(["validate", "--evals", str(folder)], capsys)
    assert code == 2
    assert err.strip() == (
        f"{folder}/evals/evals.json:5:29: evals[0].colour: unknown field 'colour'"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"evals": [1,', "evals.json:1:14: invalid JSON: Expecting value"),
        (
            '{"evals": [{"prompt": "p", "assertions": [{"type": "file_size", "path": "x"}]}]}',
            "evals[0].assertions[0].type: must be one of file_exists, file_not_exists,"
            " file_contains, file_not_contains, command, content_contains, content_not_contains,"
            " behavior_contains, behavior_not_contains, ordered_content (got 'file_size')",
        ),
        (
            '{"evals": [{"prompt": "p", "assertions": [{"type": "command"}]}]}',
            "evals[0].assertions[0].command: a command assertion needs a non-empty `command`",
        ),
        ('{"evals": [{"prompt": "p", "files": ["nope.txt"]}]}', "file not found beside"),
        (
            '{"evals": [{"prompt": "p", "assertions": [{"type": "file_contains", "path": "a",'
            ' "contains": 5}]}]}',
            "evals[0].assertions[0].contains: expected a string, got a number",
        ),
        (
            '{"evals": [{"prompt": "p", "files": [{"path": "a", "content": 5}]}]}',
            "evals[0].files[0].content: expected a string, got a number",
        ),
        (
            '{"evals": [{"prompt": "p", "files": [{"content": "x"}]}]}',
            "evals[0].files[0].path: required field is missing",
        ),
        ('{"evals": [{"id": 1, "expectations": ["x"]}]}', "evals[0].prompt: required"),
        (
            '{"evals": [{"id": 1, "prompt": 5}]}',
            "evals.json:1:32: evals[0].prompt: expected a string (the prompt sent to the agent),"
            " got a number",
        ),
        ('{"evals": [{"prompt": null}]}', "evals[0].prompt: expected a string"),
        ('{"evals": [{"prompt": " "}]}', "evals[0].prompt: empty"),
        ('{"skill": "x", "evals": [{"prompt": "p"}]}', "skill: unknown field 'skill'"),
        ('["not an object"]', "expected a JSON object"),
        ("[" * 100_000, "invalid JSON: nested too deeply"),
    ],
)
def test_bad_input_is_an_error_naming_file_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    folder = skill(tmp_path, text)
    code, _, err = run_cli(["run", "--evals", str(folder / "evals/evals.json")], capsys)
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "evals/evals.json" in err and expected in err


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda files: os.mkfifo(files / "in.csv"), "evals/files/in.csv: not a regular file"),
        (
            lambda files: (files / "in.csv").mkdir() or (files / "in.csv/l").symlink_to("/etc"),
            "evals/files/in.csv: l inside it is a symlink",
        ),
    ],
    ids=["fifo", "link-in-folder"],
)
def test_a_fixture_the_builder_cannot_copy_is_refused_at_validate(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    make: Callable[[Path], object],
    expected: str,
) -> None:
    """Red team, round 4: a FIFO listed in `files` passed `validate` and failed only when a run
    built its first workspace; now one line naming the file and the field."""
    folder = skill(tmp_path, {"evals": [{"prompt": "p", "files": ["evals/files/in.csv"]}]})
    (folder / "evals/files").mkdir()
    make(folder / "evals/files")
    code, _, err = run_cli(["validate", "--evals", str(folder)], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "evals/evals.json:6:9: evals[0].files[0]: " in err and expected in err


def test_an_evals_file_that_is_a_fifo_or_huge_is_refused_without_reading_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Red team, round 4: a FIFO named evals.json hung the evaluator, and a sparse file of any
    size was read whole before its size was checked."""
    evals = tmp_path / "evals.json"
    os.mkfifo(evals)
    code, _, err = run_cli(["validate", "--evals", str(evals), "--skill", str(tmp_path)], capsys)
    assert code == 2 and "is not a regular file" in err
    evals.unlink()
    with evals.open("wb") as sparse:
        sparse.truncate(64 * 1024 * 1024 * 1024)
    code, _, err = run_cli(["validate", "--evals", str(evals), "--skill", str(tmp_path)], capsys)
    assert code == 2 and "file is larger than 8000000 bytes" in err


def test_no_skill_folder_asks_for_skill(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "misc").mkdir()
    evals = tmp_path / "misc/evals.json"
    evals.write_text('{"skill_name": "gone", "evals": [{"prompt": "p"}]}')
    code, _, err = run_cli(["validate", "--evals", str(evals)], capsys)
    assert code == 2 and "pass --skill DIR" in err
    folder = skill(tmp_path, {"evals": [{"prompt": "q"}]}, name="gone-too")
    code, out, _ = run_cli(["validate", "--evals", str(evals), "--skill", str(folder)], capsys)
    assert code == 0 and "1 case(s)" in out


def test_evals_replaces_repo_and_skill_needs_evals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = skill(tmp_path, {"evals": [{"prompt": "p"}]})
    code, _, err = run_cli(["validate", "--evals", str(folder), "--repo", str(tmp_path)], capsys)
    assert code == 2 and "--evals replaces --repo" in err
    code, _, err = run_cli(["validate", "--skill", str(folder)], capsys)
    assert code == 2 and "add --evals" in err


def test_list_score_and_evaluate_read_an_evals_file_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A skill-creator user lists, scores and compares with `--evals`, as they run."""
    folder = skill(tmp_path, {"skill_name": "demo-skill", "evals": [{"id": 3, "prompt": "p"}]})
    code, out, _ = run_cli(["list", "--evals", str(folder), "--json"], capsys)
    listed = json.loads(out)
    assert code == 0 and listed["target"] == "demo-skill"
    assert [c["case_id"] for c in listed["cases"]] == ["eval-3"]
    # score: `--skill` stays the candidate SKILL.md, so the evals file's folder is the skill
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, _ = run_cli(["score", "--evals", str(empty)], capsys)
    assert code == 2 and out.splitlines()[-1].startswith("VERDICT: ERROR input-error:")
    assert "no evals.json here" in out
    code, _, err = run_cli(
        ["evaluate", "--evals", str(folder), "--evaluation", str(folder / "evals/evals.json")],
        capsys,
    )
    assert code == 2 and "an --evals file has none" in err
    code, _, err = run_cli(["evaluate", "--evals", str(folder), "--repo", str(tmp_path)], capsys)
    assert code == 2 and "--evals replaces --repo" in err


def test_an_in_session_attempt_takes_an_evals_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`attempt new --evals`: the workspace holds the skill where the agent finds it, and the
    run remembers the evals file for the next attempt."""
    folder = skill(tmp_path, {"evals": [{"id": 1, "prompt": "Tidy it."}, {"id": 2, "prompt": "q"}]})
    runs, root = tmp_path / "runs", tmp_path / "ws"
    first = ["attempt", "new", "eval-1", "--evals", str(folder), "--run-id", "r"]
    code, out, err = run_cli(
        [*first, "--runs-dir", str(runs), "--case-workspace-root", str(root), "--json"], capsys
    )
    assert code == 0, err
    made = json.loads(out)
    assert made["prompt"].startswith("Tidy it.")
    workspace = Path(made["workspace"])
    assert (workspace / ".agents/skills/demo-skill/SKILL.md").is_file()
    assert not (workspace / ".agents/skills/demo-skill/evals").exists()
    code, out, err = run_cli(
        ["attempt", "new", "eval-2", "--run-id", "r", "--runs-dir", str(runs), "--json"], capsys
    )
    assert code == 0 and json.loads(out)["prompt"].startswith("q"), err


def test_a_folder_without_evals_names_the_evals_files_near_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The repo root of a skills collection, or a skill whose evals sit at the repo level:
    the error names the evals.json to pass; a trigger set given as evals says what it is."""
    skill(tmp_path / "repo" / "skills", {"evals": [{"prompt": "p"}]}, name="one")
    code, _, err = run_cli(["validate", "--evals", str(tmp_path / "repo")], capsys)
    assert code == 2 and "no evals.json here" in err
    assert f"found {tmp_path}/repo/skills/one/evals/evals.json: pass one to --evals" in err
    (tmp_path / "flat/evals").mkdir(parents=True)
    (tmp_path / "flat/evals/evals.json").write_text('{"evals": [{"prompt": "p"}]}')
    (tmp_path / "flat/tidy").mkdir()
    code, _, err = run_cli(["explain", "--evals", str(tmp_path / "flat/tidy")], capsys)
    assert code == 2 and f"found {tmp_path}/flat/evals/evals.json" in err
    # a skill folder whose evals the repo keeps beside it, naming it: that file is read
    (tmp_path / "flat/evals/evals.json").write_text(
        '{"skill_name": "tidy", "evals": [{"id": 1, "prompt": "p"}]}'
    )
    (tmp_path / "flat/tidy/SKILL.md").write_text("---\nname: tidy\ndescription: d\n---\n")
    code, out, err = run_cli(["validate", "--evals", str(tmp_path / "flat/tidy")], capsys)
    assert code == 0 and f"in {tmp_path}/flat/evals/evals.json" in out, err
    out_repo = tmp_path / "converted"
    code, out, err = run_cli(
        ["convert", str(tmp_path / "flat/tidy"), "--out", str(out_repo)], capsys
    )
    assert code == 0 and (out_repo / "targets/tidy/target.yaml").is_file(), err
    # another skill's file there is only named, never run against this skill
    (tmp_path / "flat/evals/evals.json").write_text(
        '{"skill_name": "messy", "evals": [{"id": 1, "prompt": "p"}]}'
    )
    code, _, err = run_cli(["validate", "--evals", str(tmp_path / "flat/tidy")], capsys)
    assert code == 2 and f"found {tmp_path}/flat/evals/evals.json" in err
    queries = tmp_path / "flat/evals/trigger-evals.json"
    queries.write_text('[{"query": "q", "should_trigger": true}]')
    code, _, err = run_cli(["explain", "--evals", str(queries)], capsys)
    # a trigger set loads (a skill's queries without evals), but holds no case to explain
    assert code == 2 and "only the trigger set trigger-evals.json: run it with `agentic-eval" in err


def test_files_land_at_their_relative_paths_and_the_evals_never_do(tmp_path: Path) -> None:
    folder = skill(
        tmp_path,
        {
            "skill_name": "demo-skill",
            "evals": [
                {
                    "id": "a b",
                    "name": "first",
                    "prompt": "Summarise the file.",
                    "files": ["evals/files/in.csv", {"path": "src/x.py", "content": "x = 1\n"}],
                    "expectations": ["The answer names the file"],
                    "references": ["references/guide.md#usage"],
                    "case_set": "regression",
                }
            ],
        },
    )
    (folder / "evals/files").mkdir()
    (folder / "evals/files/in.csv").write_text("a,b\n1,2\n")
    repo = load(folder)
    target = repo.targets["demo-skill"]
    case = target.suites["regression"].cases[0]
    assert (case.case_id, case.case.title) == ("eval-a-b", "first")
    assert case.case.notes.likely_fix_files == ["references/guide.md"]
    workspace = build_workspace(
        case_workspace_root=tmp_path / "ws",
        case=case,
        target=target,
        source_workspace=repo.source_workspace,
        attempt=1,
    )
    files = sorted(
        p.relative_to(workspace.path).as_posix() for p in workspace.path.rglob("*") if p.is_file()
    )
    assert files == [
        ".agents/skills/demo-skill/SKILL.md",
        ".agents/skills/demo-skill/references/guide.md",
        "evals/files/in.csv",
        "src/x.py",
    ]
    assert (workspace.path / "evals/files/in.csv").read_text() == "a,b\n1,2\n"
    # nothing was written beside the evals file
    assert sorted(p.name for p in (folder / "evals").iterdir()) == ["evals.json", "files"]
    # the skill's digest is the same as for the same files in a source workspace
    source = tmp_path / "source"
    shutil.copytree(
        folder, source / ".agents/skills/demo-skill", ignore=shutil.ignore_patterns("evals")
    )
    plain = target.__class__(target=target.target, path=target.path)
    assert skill_digest(target, repo.source_workspace) == skill_digest(plain, source)


def test_typed_assertions_become_checks_and_prose_goes_to_the_judge_chain(tmp_path: Path) -> None:
    folder = skill(
        tmp_path,
        {
            "evals": [
                {
                    "id": 0,
                    "prompt": "p",
                    "expected_output": "A tidy project.",
                    "assertions": [
                        {"id": "e", "type": "file_exists", "path": "{{output_dir}}/a.txt"},
                        {"type": "file_not_exists", "path": "b.txt", "description": "no b"},
                        {"type": "file_contains", "path": "a.txt", "contains": "hi"},
                        {"type": "file_not_contains", "path": "a.txt", "contains": "bye"},
                        {"type": "command", "command": "test -f {{output_dir}}/a.txt"},
                        "The answer explains what it did",
                    ],
                }
            ]
        },
    )
    case = load(folder).targets["demo-skill"].all_cases()[0].case
    checks = [entry.checks for entry in case.assertions.required]
    assert isinstance(checks[0][0], WorkspaceFileExistsCheck) and checks[0][0].path == "a.txt"
    assert isinstance(checks[1][0], NotCheck) and case.assertions.required[1].description == "no b"
    assert isinstance(checks[2][0], WorkspaceFileContainsCheck) and checks[2][0].text == "hi"
    assert isinstance(checks[3][0], NotCheck)
    assert isinstance(checks[4][0], CommandCheck) and checks[4][0].expect_exit_code == 0
    assert checks[5] == []
    routes = [plan.decided_by for plan in plan_entries(case, grader_configured=False)]
    assert routes == ["checks"] * 5 + ["unclear-rule"]
    assert plan_entries(case, grader_configured=True)[5].decided_by == "model"
    # expected_output reaches the model judge as intent, never as a criterion
    item = grade_item(pending_entries(case)[5])
    assert item.text == "The answer explains what it did" and item.intent == "A tidy project."
    prompt = judge_prompt(item, tmp_path, 1, 1)
    assert '"A tidy project."' in prompt and "intended outcome" in prompt


def _context(tmp_path: Path, runner: object | None) -> JudgeContext:
    evidence = SessionEvidence(session_path="s.jsonl")
    return JudgeContext(
        evidence=evidence,
        workspace=tmp_path,
        ref_prefix="case-artifacts/c/attempts/attempt-01/accepted-session.json",
        record_dir=tmp_path.parent / "judge",
        commands=runner,  # type: ignore[arg-type]
    )


def test_the_command_check_runs_in_the_workspace_and_records_its_output(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.txt").write_text("hello\n")
    context = _context(workspace, JailedCommands(LaunchPolicy()))
    ok = command(CommandCheck(kind="command", command="grep -r hello {{output_dir}}"), context)
    assert ok.status == "pass" and "(no jail)" in ok.detail
    record = tmp_path / "judge" / ok.evidence[-1].rsplit("/", 1)[1]
    saved = json.loads(record.read_text())
    assert saved["exit_code"] == 0 and "hello" in saved["output"]
    assert saved["ran"] == f"grep -r hello {workspace}"
    assert ok.evidence[-1].startswith("case-artifacts/c/attempts/attempt-01/judge/command-")
    bad = command(
        CommandCheck(kind="command", command="grep -r bye {{output_dir}}", expect_exit_code=0),
        context,
    )
    assert bad.status == "fail" and "exited 1, expected 0" in bad.detail
    wanted = command(CommandCheck(kind="command", command="exit 3", expect_exit_code=3), context)
    assert wanted.status == "pass"
    slow = command(CommandCheck(kind="command", command="sleep 5", timeout_s=0.2), context)
    # Red team, round 4: a hang in what the agent left is its failure; `blocked` would drop
    # the case from the score.
    assert slow.status == "fail" and "did not finish within 0.2s" in slow.detail


def test_the_command_check_home_is_new_not_the_workspace(tmp_path: Path) -> None:
    """Red team, round 4: with the workspace as `HOME`, the agent's files were the check's user
    configuration: a `usercustomize.py` in Python's user site (under `.local/`) ran inside
    every `python3` of the check and could turn a failing exit code into 0."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    probe = subprocess.run(
        ["python3", "-c", "import site; print(site.getusersitepackages())"],
        env={**os.environ, "HOME": str(workspace)},
        capture_output=True,
        text=True,
        check=True,
    )
    user_site = Path(probe.stdout.strip())
    user_site.mkdir(parents=True)
    (user_site / "usercustomize.py").write_text(
        "import atexit, os\natexit.register(lambda: os._exit(0))\n"
    )
    (workspace / ".gitconfig").write_text("[user]\n\tname = agent\n")
    failing = CommandCheck(kind="command", command="python3 -c 'import sys; sys.exit(1)'")
    home = CommandCheck(kind="command", command='test ! -e "$HOME/.gitconfig" && test -w "$HOME"')
    launches = [LaunchPolicy()]
    if get_jail("bwrap").unavailable() is None:
        launches.append(LaunchPolicy(jail="bwrap"))
    for launch in launches:
        context = _context(workspace, JailedCommands(launch))
        verdict = command(failing, context)
        assert verdict.status == "fail" and "exited 1, expected 0" in verdict.detail
        assert command(home, context).status == "pass"


def test_a_secret_cut_by_the_command_record_is_still_redacted(tmp_path: Path) -> None:
    """Red team, round 10b: the record keeps the last OUTPUT_LIMIT characters of the check's
    output. A key the command printed where that cut falls left all but its first characters in
    `judge/command-*.json`, unmarked, so the redactor's rule for a secret cut short (a part
    beside an ellipsis) did not apply."""
    key = "sk-proj-Q8vNw3Zt7LmK2xRb9YcJ4pHs6DfA1gE5"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    tail = "z" * (OUTPUT_LIMIT - (len(key) - 3))
    (workspace / "out.txt").write_text(f"pad\n{key}{tail}")
    context = _context(workspace, JailedCommands(LaunchPolicy()))
    verdict = command(CommandCheck(kind="command", command="cat {{output_dir}}/out.txt"), context)
    assert verdict.status == "pass"
    record = tmp_path / "judge" / verdict.evidence[-1].rsplit("/", 1)[1]
    Redactor({"OPENAI_API_KEY": key}).tree(tmp_path / "judge")
    kept = record.read_text()
    assert key[3:] not in kept and key[-8:] not in kept
    saved = json.loads(kept)
    assert saved["output_truncated"]
    assert saved["output"].startswith("...[REDACTED:OPENAI_API_KEY]zzz")


def test_the_workspace_is_judged_as_the_agent_left_it_before_any_command_runs(
    tmp_path: Path,
) -> None:
    """Red team, round 10b: the agent leaves a wrong answer and a "test" that writes the right
    one. Listed before the `workspace_file_contains` check, the `command` check that runs the
    test rewrote the answer first, and the case passed (listed after it, it failed). Every
    check that reads the workspace now judges it before any command runs."""
    from evaluator.contract.models import Case
    from evaluator.judge import judge_case

    workspace = tmp_path / "ws"
    workspace.mkdir()
    # the agent's "test" as a shell script: what the judge's order decides is the same for any
    # program, and ten runs of a shell cost far less than ten starts of Python
    (workspace / "test_answer.sh").write_text("printf '42\\n' > answer.txt\n")
    ran = {
        "description": "the test passes",
        "checks": [{"kind": "command", "command": "cd {{output_dir}} && sh test_answer.sh"}],
    }
    holds = {
        "description": "the answer",
        "checks": [{"kind": "workspace_file_contains", "path": "answer.txt", "text": "42"}],
    }
    # the same, as a sentence the rules judge compiles (decided after every typed entry)
    said = {"description": "Output file `answer.txt` exists and mentions `42`."}
    for left, expected in (("7\n", "fail"), ("42\n", "pass")):
        for required in ([ran, holds], [holds, ran], [ran, said], [said, ran], [ran, holds, said]):
            (workspace / "answer.txt").write_text(left)
            case = Case.model_validate(
                {
                    "case_id": "c",
                    "title": "t",
                    "input": {"user_prompt": "p"},
                    "assert": {"required": required},
                }
            )
            judgement = judge_case(case, _context(workspace, JailedCommands(LaunchPolicy())))
            listed = [str(entry["description"]) for entry in required]
            assert judgement.status == expected, (left, listed)
            # the command did rewrite the answer: the verdict above was not reached by its doing nothing
            assert (workspace / "answer.txt").read_text() == "42\n"
            # what the judge reports stays in the order the author listed
            assert [e.summary for e in judgement.entries] == listed


def _check_launches() -> list[LaunchPolicy]:
    launches = [LaunchPolicy()]
    if get_jail("bwrap").unavailable() is None:
        launches.append(LaunchPolicy(jail="bwrap"))
    return launches


_AUTHOR_TEST = (
    "import unittest\n"
    "class T(unittest.TestCase):\n"
    "    def test_answer(self):\n"
    "        self.assertEqual(open('answer.txt').read().strip(), '42')\n"
)
_RUN_AUTHOR_TEST = "cd {{output_dir}} && python3 -m unittest discover -s tests -q"


def test_the_command_check_compiles_python_afresh_not_from_the_agent_s_pycache(
    tmp_path: Path,
) -> None:
    """Red team, round 10b: the author's test file stays untouched, but the agent leaves a
    `.pyc` beside it (an unchecked hash-based one: Python loads it without looking at the
    source) holding a test that always passes. The check's Python imported it from
    `__pycache__` and passed a wrong answer; it now compiles under the check's own home."""
    workspace = tmp_path / "ws"
    (workspace / "tests").mkdir(parents=True)
    (workspace / "tests" / "test_x.py").write_text(_AUTHOR_TEST)
    (workspace / "answer.txt").write_text("7\n")
    forged = tmp_path / "forged.py"
    forged.write_text(_AUTHOR_TEST.replace("self.assertEqual(", "print("))
    cached = workspace / "tests" / "__pycache__" / "test_x.cpython-{}{}.pyc"
    subprocess.run(
        [
            "python3",
            "-c",
            "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2].format("
            "*sys.version_info[:2]), invalidation_mode=py_compile.PycInvalidationMode."
            "UNCHECKED_HASH)",
            str(forged),
            str(cached),
        ],
        check=True,
    )
    check = CommandCheck(kind="command", command=_RUN_AUTHOR_TEST)
    for launch in _check_launches():
        verdict = command(check, _context(workspace, JailedCommands(launch)))
        assert verdict.status == "fail" and "exited 1, expected 0" in verdict.detail
    # honest look-alike: the right answer, with the caches the agent's own test runs left
    (workspace / "answer.txt").write_text("42\n")
    shutil.rmtree(workspace / "tests" / "__pycache__")
    plain = {name: value for name, value in os.environ.items() if not name.startswith("PYTHON")}
    subprocess.run(
        ["python3", "-m", "unittest", "discover", "-s", "tests", "-q"],
        cwd=workspace,
        env=plain,
        check=True,
        capture_output=True,
    )
    assert list((workspace / "tests" / "__pycache__").glob("*.pyc"))
    for launch in _check_launches():
        assert command(check, _context(workspace, JailedCommands(launch))).status == "pass"


def test_the_command_check_finds_programs_by_name_outside_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red team, round 10b: with a relative entry on the user's PATH (`bin`, `.`,
    `node_modules/.bin`: looked up from the check's working directory, the workspace), a
    `python3` the agent put in `bin/` ran in place of the author's and exited 0."""
    workspace = tmp_path / "ws"
    (workspace / "tests").mkdir(parents=True)
    (workspace / "tests" / "test_x.py").write_text(_AUTHOR_TEST)
    (workspace / "answer.txt").write_text("7\n")
    (workspace / "bin").mkdir()
    (workspace / "bin" / "python3").write_text("#!/bin/sh\nexit 0\n")
    (workspace / "bin" / "python3").chmod(0o755)
    monkeypatch.setenv("PATH", f"bin::{os.environ['PATH']}")
    check = CommandCheck(kind="command", command=_RUN_AUTHOR_TEST)
    for launch in _check_launches():
        verdict = command(check, _context(workspace, JailedCommands(launch)))
        assert verdict.status == "fail" and "exited 1, expected 0" in verdict.detail
    # honest look-alike: a program of the workspace named by its path still runs
    named = CommandCheck(kind="command", command="cd {{output_dir}} && bin/python3")
    for launch in _check_launches():
        assert command(named, _context(workspace, JailedCommands(launch))).status == "pass"


# What the check's access trace shows of a command that ran nothing of the session's.
# What a tool's trace shows when it ran nothing of the session's and looked its index's name up
# (every fetch that fails for want of a network tried one); the same without the lookup.
CLEAN_TRACE = CommandTrace(execs=(), accesses=(), complete=True, network=("10.255.255.53:53",))
NO_NETWORK_TRIED = CommandTrace(execs=(), accesses=(), complete=True)
TRACED_JAIL = LaunchPolicy(
    jail="bwrap", trace=True, hidden=(Path.home(),), tracer=tracer_under_test()
)
needs_traced_jail = pytest.mark.skipif(
    get_jail("bwrap").unavailable() is not None or Tracer().unavailable() is not None,
    reason="bubblewrap or strace does not work here",
)


@needs_traced_jail
def test_a_command_the_machine_stops_is_blocked_environment_not_failed(tmp_path: Path) -> None:
    """A perfect agent must not fail because this machine lacks a program, a network or a
    pip that may install: every agent would get that exit code here."""
    context = _context(tmp_path, JailedCommands(TRACED_JAIL))
    missing = command(
        CommandCheck(kind="command", command="cd {{output_dir}} && no-such-program-4711 --v"),
        context,
    )
    assert missing.status == "blocked" and missing.blocked_reason == "environment"
    assert "`no-such-program-4711` is not installed here" in missing.detail
    # without the trace it cannot be proven: the command's exit code decides
    untraced = command(
        CommandCheck(kind="command", command="cd {{output_dir}} && no-such-program-4711 --v"),
        _context(tmp_path, JailedCommands(LaunchPolicy())),
    )
    assert untraced.status == "fail" and "cannot be proven" in untraced.detail
    # a path the agent should have written is the agent's: still a failure
    script = command(
        CommandCheck(kind="command", command="cd {{output_dir}} && ./build.sh"), context
    )
    assert script.status == "fail"
    # so is a program only the agent's own script calls (its typo, not the machine's lack)
    (tmp_path / "build.sh").write_text("#!/bin/sh\nmvnn package\n")
    (tmp_path / "build.sh").chmod(0o755)
    typo = command(CommandCheck(kind="command", command="cd {{output_dir}} && ./build.sh"), context)
    assert typo.status == "fail" and "exited 127" in typo.detail

    def printing(output: str, exit_code: int = 1) -> object:
        def run(text: str, workspace: Path, timeout_s: float) -> CommandOutcome:
            return CommandOutcome(exit_code, output, "bwrap jail", trace=CLEAN_TRACE)

        return run

    pep668 = "error: externally-managed-environment\n\nThis environment is externally managed\n"
    offline_pip = (
        "WARNING: Retrying after connection broken by 'NewConnectionError(': Failed to establish"
        " a new connection: [Errno -3] Temporary failure in name resolution')'\n"
        "ERROR: No matching distribution found for confluent-kafka\n"
    )
    offline_npm = (
        "npm error code EAI_AGAIN\nnpm error request to https://registry.npmjs.org failed\n"
    )
    for output, why in (
        (pep668, "PEP 668"),
        (offline_pip, "pip could not reach its package index"),
        (offline_npm, "npm could not reach its registry"),
    ):
        verdict = command(
            CommandCheck(kind="command", command="pip install -r requirements.txt && pytest"),
            _context(tmp_path, printing(output)),
        )
        assert (verdict.status, verdict.blocked_reason) == ("blocked", "environment"), output
        assert why in verdict.detail and "exited 1, expected 0" in verdict.detail
    # a package name that does not exist, with the index reachable, is the agent's mistake;
    # so is a test of the agent's own that fails to resolve a host
    for output in (
        "ERROR: No matching distribution found for confluent-kafak\n",
        "FAILED tests/test_project.py::test_send - Temporary failure in name resolution\n",
    ):
        verdict = command(
            CommandCheck(kind="command", command="pip install -r requirements.txt && pytest"),
            _context(tmp_path, printing(output)),
        )
        assert verdict.status == "fail", output
    # the expected exit code still passes, whatever the output says
    verdict = command(
        CommandCheck(kind="command", command="x", expect_exit_code=1),
        _context(tmp_path, printing(pep668)),
    )
    assert verdict.status == "pass"


OFFLINE_TOOLS = ROOT / "tests" / "fixtures" / "offline-tools"


@pytest.mark.parametrize(
    ("capture", "why"),
    [
        ("maven-dependencies-offline.txt", "Maven could not reach its repository"),
        ("maven-plugin-offline.txt", "Maven could not reach its repository"),
        ("maven-resources-plugin-offline.txt", "Maven could not reach its repository"),
        ("maven-offline-mode.txt", "Maven had to work offline"),
        ("gradle-offline.txt", "Gradle could not reach its repository"),
        ("gradle-offline-mode.txt", "Gradle could not reach its repository"),
        ("gradle-wrapper-offline.txt", "the Gradle wrapper could not download Gradle"),
        ("cargo-offline.txt", "cargo could not reach its registry"),
        ("go-build-offline.txt", "go could not reach its module proxy"),
        ("go-mod-download-offline.txt", "go could not reach its module proxy"),
        ("pip-read-only-site-packages.txt", "pip could not write where it installs"),
        ("gradle-compile-error.txt", None),
        ("cargo-compile-error.txt", None),
        ("go-compile-error.txt", None),
    ],
)
def test_a_build_tool_without_network_is_blocked_environment_its_compile_error_fails(
    tmp_path: Path, capture: str, why: str | None
) -> None:
    """What the real tools printed here, without network (tests/fixtures/offline-tools): a
    build that could not fetch its dependencies says nothing of the agent's code; one that
    fetched nothing and failed to compile the agent's code does."""
    output = (OFFLINE_TOOLS / capture).read_text(encoding="utf-8")

    def judged(trace: CommandTrace) -> CheckVerdict:
        def printing(text: str, workspace: Path, timeout_s: float) -> CommandOutcome:
            exit_code = 101 if capture.startswith("cargo") else 1
            return CommandOutcome(exit_code, output, "bwrap jail", trace=trace)

        return command(
            CommandCheck(kind="command", command="cd {{output_dir}} && make build"),
            _context(tmp_path, printing),
        )

    verdict = judged(CLEAN_TRACE)
    if why is None:
        assert verdict.status == "fail", verdict.detail
        return
    assert (verdict.status, verdict.blocked_reason) == ("blocked", "environment")
    assert f"could not do its work here: {why}" in verdict.detail
    # the line that says so is quoted, without the colour codes Maven prints
    assert "says: " in verdict.detail and "\x1b" not in verdict.detail
    # A fetch that failed was tried: the same text from processes that never looked a name up
    # nor connected is something else's (a tool echoing a manifest's words). Told to work
    # offline, or refused a write, a tool fetches nothing.
    silent = judged(NO_NETWORK_TRIED)
    if capture in (
        "maven-offline-mode.txt",
        "gradle-offline-mode.txt",
        "pip-read-only-site-packages.txt",
    ):
        assert (silent.status, silent.blocked_reason) == ("blocked", "environment")
    else:
        assert silent.status == "fail", silent.detail
        assert "no process of it tried to reach the network" in silent.detail


def test_a_tool_s_fetch_failure_without_a_network_sign_is_the_agent_s() -> None:
    """A dependency that does not exist fails the same way with a network: only the sign of
    no network makes it the machine's."""
    for output in (
        "[ERROR] Failed to execute goal on project demo: Could not resolve dependencies for"
        " project x:demo:jar:1.0: Could not find artifact org.example:nope:jar:9.9 in central\n",
        "> Could not resolve org.example:nope:9.9.\n  > Could not find org.example:nope:9.9.\n",
        "error: failed to get `serdee` as a dependency of package `demo v0.1.0`\n"
        "Caused by: no matching package named `serdee` found\n",
    ):
        outcome = CommandOutcome(1, output, "bwrap jail")
        assert machine_failure("mvn package", outcome) is None, output


def test_validate_warns_of_a_command_that_installs_packages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Said before any run: a check that installs packages has no network here."""
    install = "cd {{output_dir}} && pip install -r requirements.txt -q && python -m pytest"
    folder = skill(
        tmp_path,
        {
            "evals": [
                {
                    "id": 1,
                    "prompt": "p",
                    "assertions": [
                        {"type": "command", "command": install},
                        {"type": "command", "command": "grep -r pip {{output_dir}}"},
                        {"type": "command", "command": "cd {{output_dir}} && mvn -q package"},
                        {"type": "command", "command": "grep -c mvn {{output_dir}}/pom.xml"},
                        {
                            "type": "command",
                            "command": "cd {{output_dir}} && no-such-tool-4711 build 2>&1"
                            " | grep -q 'a|b' && if true; then ./run.sh; fi",
                        },
                    ],
                }
            ]
        },
    )
    code, out, err = run_cli(["validate", "--evals", str(folder)], capsys)
    warnings = [line for line in (out + err).splitlines() if line.startswith("warning:")]
    assert code == 0 and len(warnings) == 3, out + err
    assert "evals[0].assertions[0].command: `pip install` needs a network" in warnings[0]
    assert "evals[0].assertions[2].command: `mvn -q package` needs a network" in warnings[1]
    # a program this machine lacks is said before the run: the check will be blocked
    assert "evals[0].assertions[4].command: `no-such-tool-4711` is not installed" in warnings[2]
    assert missing_programs("FOO=1 nope-4711 -x 2>&1 | grep y; if true; then nope-4712; fi") == [
        "nope-4711",
        "nope-4712",
    ]
    assert missing_programs("./build.sh && ! grep 'a|b' x && cd {{output_dir}}") == []


def test_the_command_check_is_blocked_without_a_runner(tmp_path: Path) -> None:
    verdict = command(CommandCheck(kind="command", command="true"), _context(tmp_path, None))
    assert verdict.status == "blocked" and verdict.blocked_reason == "insufficient-evidence"

    def broken(text: str, workspace: Path, timeout_s: float) -> CommandOutcome:
        return CommandOutcome(None, "", "bwrap jail", error="cannot start: no bwrap")

    verdict = command(CommandCheck(kind="command", command="true"), _context(tmp_path, broken))
    assert verdict.status == "blocked" and "no bwrap" in verdict.detail


def test_verification_and_task_agent_raw_scope_reach_the_model_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "agentic-evals"
    shutil.copytree(UPSTREAM, repo)
    path = next(p for p in (repo / "targets").rglob("cases/*/*.yaml") if p.name != "suite.yaml")
    verification = [
        "Read the accepted task trace and final answer.",
        "If the task trace is incomplete, mark blocked with insufficient-evidence.",
    ]
    data = yaml.safe_load(path.read_text())
    data["verification"] = verification
    data["assert"]["required"][0]["evidence_scope"] = ["task-agent-raw.jsonl"]
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    code, _, err = run_cli(["validate", "--repo", str(repo)], capsys)
    assert code == 0, err  # upstream's newer keys are known, not extras
    case = next(
        c.case
        for t in open_repo(repo, None).targets.values()
        for c in t.all_cases()
        if c.path == path
    )
    assert case.verification == verification
    pending = [p for p in pending_entries(case) if "task-agent-raw.jsonl" in p.entry.evidence_scope]
    assert pending
    item = grade_item(pending[0])
    assert item.verification == tuple(verification)
    assert "raw session" in (item.evidence_scope or "")
    prompt = judge_prompt(item, tmp_path, 1, 1)
    assert json.dumps(verification) in prompt and "instructions to the verifier" in prompt


def test_deferred_cases_are_listed_and_run_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "agentic-evals"
    shutil.copytree(UPSTREAM, repo)
    target_dir = next((repo / "targets").iterdir())
    case = next(p for p in (target_dir / "cases").rglob("*.yaml") if p.name != "suite.yaml")
    text = case.read_text().replace(f'case_id: "{case.stem}"', 'case_id: "parked"')
    text = text.replace(f"case_id: {case.stem}", "case_id: parked")
    (target_dir / "deferred-cases/parked.yaml").write_text(text)
    code, out, err = run_cli(["validate", "--repo", str(repo)], capsys)
    assert code == 0, err
    assert f"deferred: {target_dir.name}/deferred/parked;" in out
    assert "later (not runnable: " in out  # the upstream draft, listed with its problem
    loaded = open_repo(repo, None)
    default = select_cases(loaded)
    assert "parked" not in [c.case_id for c in default.cases]
    asked = select_cases(loaded, include_deferred=True)
    assert [c.case_id for c in asked.cases][-1] == "parked"
    assert [c.case_id for c in select_cases(loaded, case_ids=["parked"]).cases] == ["parked"]
    assert select_cases(loaded, suite_ids=["deferred"]).suite_ids == ["deferred"]
    code, out, _ = run_cli(["explain", "--repo", str(repo), "--json"], capsys)
    assert json.loads(out)["deferred_not_explained"] == ["parked"]
    code, out, _ = run_cli(["list", "--repo", str(repo)], capsys)
    assert code == 0 and "deferred cases (1;" in out and "deferred/parked" in out
    code, out, _ = run_cli(["list", "--repo", str(repo), "--json"], capsys)
    assert json.loads(out)["deferred_cases"] == ["parked"]


def test_list_names_every_target_of_a_repo_without_a_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The public repo holds two targets and no default_target: `list` shows both (a run must
    name one), where it used to stop at the error a run gives."""
    repo = tmp_path / "agentic-evals"
    shutil.copytree(UPSTREAM, repo)
    targets = repo / "targets"
    second = targets / "second"
    shutil.copytree(targets / "voice-ai-integration", second)
    for path in second.rglob("*.yaml"):
        text = path.read_text().replace("targets/voice-ai-integration/", "targets/second/")
        path.write_text(text.replace('target_id: "voice-ai-integration"', 'target_id: "second"'))
    code, out, err = run_cli(["list", "--repo", str(repo)], capsys)
    assert code == 0, err
    assert "targets: second, voice-ai-integration (default: none)" in out
    assert "target second: entry skill" in out and "pass --target T" in out
    code, out, _ = run_cli(["list", "--repo", str(repo), "--json"], capsys)
    listed = json.loads(out)
    assert listed["targets"] == ["second", "voice-ai-integration"] and listed["target"] is None
    code, out, _ = run_cli(["list", "--repo", str(repo), "--target", "second"], capsys)
    assert code == 0 and "selected cases (" in out
    code, _, err = run_cli(["run", "--repo", str(repo)], capsys)
    assert code == 2 and "several targets" in err


def test_convert_writes_the_equivalent_yaml_repo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = skill(
        tmp_path,
        {
            "skill_name": "demo-skill",
            "evals": [
                {
                    "id": 1,
                    "prompt": "Use the data.",
                    "expected_output": "It is used.",
                    "files": ["evals/files/in.csv"],
                    "assertions": [
                        {"type": "command", "command": "test -s {{output_dir}}/out.txt"},
                        {"type": "file_not_contains", "path": "out.txt", "contains": "TODO"},
                        "The answer cites in.csv",
                    ],
                }
            ],
        },
    )
    (folder / "evals/files").mkdir()
    (folder / "evals/files/in.csv").write_text("a\n")
    out = tmp_path / "source/agentic-evals"
    code, stdout, err = run_cli(["convert", str(folder), "--out", str(out)], capsys)
    assert code == 0, err
    assert "place" in stdout and ".agents/skills/demo-skill/" in stdout
    shutil.copytree(
        folder,
        tmp_path / "source/.agents/skills/demo-skill",
        ignore=shutil.ignore_patterns("evals"),
    )
    converted = load(out)
    original = load(folder)
    [before] = original.targets["demo-skill"].all_cases()
    [after] = converted.targets["demo-skill"].all_cases()
    assert after.case.assertions == before.case.assertions
    assert after.case.input == before.case.input
    assert after.case.expected_output == "It is used."
    assert before.case.notes.likely_fix_files == ["SKILL.md"]  # in the skill folder
    assert after.case.notes.likely_fix_files == [".agents/skills/demo-skill/SKILL.md"]
    target = converted.targets["demo-skill"]
    assert target.target.entry_skill == original.targets["demo-skill"].target.entry_skill
    built = build_workspace(
        case_workspace_root=tmp_path / "ws",
        case=after,
        target=target,
        source_workspace=converted.source_workspace,
        attempt=1,
    )
    assert (built.path / "evals/files/in.csv").read_text() == "a\n"
    code, _, err = run_cli(["convert", str(folder), "--out", str(out)], capsys)
    assert code == 2 and "not empty" in err


def test_the_command_check_never_runs_on_a_snapshot_missing_content(tmp_path: Path) -> None:
    context = _context(tmp_path, JailedCommands(LaunchPolicy()))
    context.without_content = frozenset({"big.bin"})
    verdict = command(CommandCheck(kind="command", command="true"), context)
    assert verdict.status == "blocked" and "big.bin" in verdict.detail


def test_a_rejudge_runs_commands_in_the_run_jail_only_where_it_works() -> None:
    assert rejudge_commands("none", ()).launch.jail == "none"
    assert rejudge_commands(None, ()).launch.jail == "none"
    works = get_jail("bwrap").unavailable() is None
    assert rejudge_commands("bwrap", ()).launch.jail == ("bwrap" if works else "none")


def test_misc_evals_layout_finds_the_skill_under_skills(tmp_path: Path) -> None:
    folder = skill(tmp_path / "repo/skills", {"evals": [{"prompt": "p"}]}, name="foo")
    shutil.rmtree(folder / "evals")
    evals = tmp_path / "repo/misc/evals/foo/evals.json"
    evals.parent.mkdir(parents=True)
    evals.write_text(json.dumps({"skill_name": "foo", "evals": [{"id": 1, "prompt": "p"}]}))
    repo = load(evals)
    target = repo.targets["foo"]
    assert target.skill_mount is not None and target.skill_mount.origin == folder.resolve()
    assert repo.source_workspace == folder.resolve() and repo.root == evals.parent
    assert target.target.roots == [".agents/skills/foo/references"]


POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>x</groupId><artifactId>demo</artifactId><version>1.0</version>
<dependencies><dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId>
<version>33.0.0-jre</version></dependency></dependencies></project>
"""
BUILD_GRADLE = """apply plugin: 'java'
repositories { mavenCentral() }
dependencies { compile 'com.google.guava:guava:33.0.0-jre' }
"""


CARGO_TOML = """[package]
name = "demo"
version = "0.1.0"
edition = "2021"

[dependencies]
serde = "1"
"""
JAVA_CLASS = {"src/main/java/x/A.java": "package x; public class A {}\n"}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("tool", "files", "build"),
    [
        ("mvn", {"pom.xml": POM, **JAVA_CLASS}, "mvn -B -q package"),
        ("gradle", {"build.gradle": BUILD_GRADLE, **JAVA_CLASS}, "gradle --no-daemon -q build"),
        ("cargo", {"Cargo.toml": CARGO_TOML, "src/main.rs": "fn main() {}\n"}, "cargo build"),
    ],
)
def test_a_build_in_the_check_jail_runs_the_machine_s_tool_with_a_home_it_can_write(
    tool: str, files: dict[str, str], build: str
) -> None:
    """The jail hides the user's home: the JVM's home (from the password database) for Maven
    and Gradle, and cargo's installation and toolchains under it (`~/.cargo`, `~/.rustup`).
    Without a writable home and those bound back, every build failed or `cargo` was "not
    installed" there, for any agent. Now the real tool builds, or cannot fetch for want of a
    network, which is the machine's."""
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed here")
    if get_jail("bwrap").unavailable() is not None:
        pytest.skip("bubblewrap does not work here")
    with scratch_dir() as scratch:
        workspace = scratch / "ws"
        for name, text in files.items():
            (workspace / name).parent.mkdir(parents=True, exist_ok=True)
            (workspace / name).write_text(text)
        jailed = JailedCommands(LaunchPolicy(jail="bwrap", hidden=(Path.home(),)))
        outcome = jailed(f"{build} 2>&1", workspace, 240)
        assert outcome.exit_code not in (None, 127), outcome.output
        why = machine_failure(build, outcome)
        assert outcome.exit_code == 0 or why is not None, outcome.output
        assert "Failed to create parent directory" not in outcome.output
        assert "Could not create local repository" not in outcome.output


def test_a_command_printing_without_bound_keeps_only_its_tail(tmp_path: Path) -> None:
    outcome = JailedCommands(LaunchPolicy())("yes line | head -c 3000000; echo END", tmp_path, 30)
    assert outcome.exit_code == 0 and outcome.output.endswith("END\n")
    assert len(outcome.output) <= 256 * 1024


def test_a_folder_without_evals_json_is_named_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("validate", "explain"):
        code, _, err = run_cli([name, "--evals", str(tmp_path)], capsys)
        assert code == 2 and "no evals.json here (nor evals/evals.json)" in err


@pytest.mark.parametrize(
    ("command", "wrong", "says"),
    [
        (["run"], "SKILL.md", "here --skill is the skill folder (holding SKILL.md)"),
        (["score"], ".", "here --skill is a candidate SKILL.md file"),
        (["triggers"], ".", "here --skill is a candidate SKILL.md file"),
    ],
)
def test_a_skill_of_the_wrong_kind_says_which_kind_this_command_takes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], wrong: str, says: str
) -> None:
    """`--skill` is a folder for `run --evals` and a candidate SKILL.md for `score` and
    `triggers`: the wrong one is exit 2 with one line naming where the other kind goes."""
    folder = skill(tmp_path, {"evals": [{"prompt": "p", "expectations": ["x"]}]})
    code, _, err = run_cli(
        [*command, "--evals", str(folder), "--skill", str(folder / wrong)], capsys
    )
    assert code == 2
    assert says in err and "\n" not in err.strip()


def test_a_skill_name_the_skill_does_not_declare_is_a_located_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The target takes `skill_name`, the agent the skill's own name: a stale one is said."""
    folder = skill(
        tmp_path, '{"skill_name": "old-name",\n "evals": [{"prompt": "p", "expectations": ["x"]}]}'
    )
    code, out, err = run_cli(["validate", "--evals", str(folder)], capsys)
    assert code == 0 and out.startswith("ok:")
    assert err.strip() == (
        f"warning: {folder}/evals/evals.json:1:16: skill_name: 'old-name' is not the name the"
        f" SKILL.md of {folder} declares ('demo-skill'); that skill is the one under test"
    )
    same = skill(
        tmp_path / "same",
        '{"skill_name": "demo-skill", "evals": [{"prompt": "p", "expectations": ["x"]}]}',
    )
    assert run_cli(["validate", "--evals", str(same)], capsys)[2] == ""
