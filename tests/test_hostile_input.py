"""Untrusted eval-repo input: ids, paths, symlinks, behaviour files and regexes never lead the
evaluator outside its roots or to a wrong verdict; each problem is a located error, exit 2."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from evaluator import yamlsource
from evaluator.artifacts.rundir import RunDir
from evaluator.contract.models import CopyFixture
from evaluator.errors import InputError
from evaluator.modelserver.behaviors import Match
from evaluator.patterns import PatternError, compile_pattern
from evaluator.plan import open_repo
from evaluator.prompting import agent_prompt
from evaluator.safepath import UnsafePath, contained, id_problem
from evaluator.workspace import build_workspace
from evaluator.workspace.builder import attempt_dir
from evaluator.workspace.naming import digest_name
from tests.cli.test_validate import CASE, replace_in, run_cli, write
from tests.conftest import ROOT, copy_demo

BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors"
RENAME_PROMPT = "We are renaming the table `clients` to `customers`. What migration do I need?"


# ---------------------------------------------------------------- ids and the containment helper


@pytest.mark.parametrize("bad", ["../x", "..", ".", "a/b", "a\nb", "", " x", "-x", ".hidden"])
def test_ids_outside_the_pattern_are_refused(bad: str) -> None:
    assert id_problem(bad) is not None


@pytest.mark.parametrize("good", ["routing-rename-table", "a", "v1.2_x", "9"])
def test_plain_ids_are_accepted(good: str) -> None:
    assert id_problem(good) is None


def test_contained_refuses_every_way_out(tmp_path: Path) -> None:
    (tmp_path / "inner").mkdir()
    os.symlink("/etc", tmp_path / "link")
    for parts in [("../x",), ("inner", "../../x"), ("/etc",), ("link", "passwd"), ("a\nb",)]:
        with pytest.raises(UnsafePath):
            contained(tmp_path, *parts)
    assert contained(tmp_path, "inner", "x.json") == tmp_path / "inner/x.json"


def test_contained_paths_resolve_inside_the_resolved_root(tmp_path: Path) -> None:
    # Through a symlinked root, into existing and missing pieces: each result resolves to the
    # resolved root with its pieces appended, never elsewhere.
    (tmp_path / "real/inner").mkdir(parents=True)
    (tmp_path / "real/inner/file").write_text("x")
    (tmp_path / "via").symlink_to(tmp_path / "real")
    for parts in [("inner",), ("inner", "file"), ("inner/missing", "deeper"), ("./inner",)]:
        path = contained(tmp_path / "via", *parts)
        assert path.resolve() == (tmp_path / "real").resolve().joinpath(*parts)
    os.symlink(tmp_path, tmp_path / "real/inner/up")
    with pytest.raises(UnsafePath, match="symlink"):
        contained(tmp_path / "via", "inner/up", "real")


def test_run_dir_and_workspace_paths_from_ids_stay_under_their_roots(tmp_path: Path) -> None:
    run_dir = RunDir(tmp_path / "run")
    with pytest.raises(UnsafePath):
        run_dir.case_result_path("../../escape")
    with pytest.raises(UnsafePath):
        run_dir.case_artifacts("..")
    with pytest.raises(InputError, match="case id cannot name a workspace"):
        attempt_dir(tmp_path / "ws", "../escape", 1)
    assert attempt_dir(tmp_path / "ws", "ok", 2) == tmp_path / f"ws/{digest_name('ok')}/02"


def test_run_id_with_a_path_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(
        [
            "run",
            "--repo",
            str(ROOT / "agentic-evals"),
            "--runs-dir",
            str(tmp_path / "runs"),
            "--run-id",
            "../escape",
            "--behaviors",
            str(BEHAVIORS / "follows-skill"),
        ],
        capsys,
    )
    assert code == 2
    assert "--run-id: run '../escape' is not a valid id" in err
    assert not (tmp_path / "escape").exists()


def test_builder_copies_no_symlink_even_without_validate(tmp_path: Path) -> None:
    repo_dir = copy_demo(tmp_path)
    repo = open_repo(repo_dir, None)
    link = repo_dir.parent / ".agents/skills/db-migrations/references/passwd.md"
    link.symlink_to("/etc/passwd")
    target = repo.targets["db-migrations"]
    with pytest.raises(InputError, match="symlink"):
        build_workspace(
            case_workspace_root=tmp_path / "ws",
            case=target.all_cases()[0],
            target=target,
            source_workspace=repo.source_workspace,
            attempt=1,
            environ={},
        )
    assert not list((tmp_path / "ws").rglob("passwd.md"))


def test_builder_refuses_a_fixture_that_is_missing_or_not_a_file(tmp_path: Path) -> None:
    repo_dir = copy_demo(tmp_path)
    repo = open_repo(repo_dir, None)
    target = repo.targets["db-migrations"]
    case = target.all_cases()[0]
    fixtures = target.fixtures_dir
    fixtures.mkdir(parents=True, exist_ok=True)
    os.mkfifo(fixtures / "pipe")
    for number, source in enumerate(["missing.sql", "pipe"], start=1):
        setup = case.case.setup.model_copy(
            update={"copy_fixtures": [CopyFixture(source=source, target="db/x.sql")]}
        )
        broken = replace(case, case=case.case.model_copy(update={"setup": setup}))
        with pytest.raises(InputError, match="neither a regular file nor a directory"):
            build_workspace(
                case_workspace_root=tmp_path / "ws",
                case=broken,
                target=target,
                source_workspace=repo.source_workspace,
                attempt=number,
                environ={},
            )


# ---------------------------------------------------------------- regexes


def test_check_patterns_use_a_linear_time_engine() -> None:
    # Exponential for a backtracking engine (2^64 paths); RE2 answers at once.
    assert compile_pattern(r"^(a+)+$").search("a" * 64 + "b") is None
    assert compile_pattern(r"(?i)migrat\w+").search("see Migrations/") == "Migrations"
    with pytest.raises(PatternError, match="invalid regular expression"):
        compile_pattern(r"(a)\1")  # a backreference: Python's re accepts it, RE2 does not


# ---------------------------------------------------------------- real files load


def test_integer_rubric_anchor_keys_are_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    shutil.copytree(ROOT / "tests/fixtures/upstream", tmp_path / "up")
    repo = tmp_path / "up/agentic-evals"
    replace_in(repo, "rubrics/answer-quality.yaml", '"1": "Wrong"', '1: "Wrong"')
    replace_in(repo, "rubrics/answer-quality.yaml", '"5": "Right"', '5: "Right"')
    code, _, err = run_cli(["validate", "--repo", str(repo)], capsys)
    assert code == 0, err


def test_public_shape_keys_are_known_and_setup_network_facts_accepted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    shutil.copytree(ROOT / "tests/fixtures/upstream", tmp_path / "up")
    repo = tmp_path / "up/agentic-evals"
    case = "targets/voice-ai-integration/cases/bootstrap/bootstrap-missing-docs-index.yaml"
    replace_in(
        repo,
        case,
        "  docs_index_present: false\n",
        "  docs_index_present: false\n  network_mode: offline\n  force_fetch_failure: true\n"
        "  sample_repo_available: false\n",
    )
    write(
        repo,
        "evaluations/comparison/vs.yaml",
        'eval_id: "vs"\nmode: "comparison"\nvariants:\n'
        '  a: {label: "A", target_id: "voice-ai-integration", skill_path: ".agents/skills/a"}\n'
        'shared_cases: {from_target: "voice-ai-integration", suites: ["routing"]}\n',
    )
    code, _, err = run_cli(["validate", "--repo", str(repo)], capsys)
    assert code == 0, err
    assert "warning" not in err


# ---------------------------------------------------------------- --target checks one target


def test_target_flag_checks_only_that_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    write(
        repo,
        "targets/other/target.yaml",
        'target_id: "other"\nentry_skill: ".agents/skills/other/SKILL.md"\n',
    )
    code, _, err = run_cli(["validate", "--repo", str(repo)], capsys)
    assert code == 2 and "skill file not found" in err
    code, out, err = run_cli(["validate", "--repo", str(repo), "--target", "db-migrations"], capsys)
    assert code == 0, err
    assert "1 target(s), 10 case(s)" in out
    assert list(open_repo(repo, None, target="db-migrations").targets) == ["db-migrations"]
    code, _, err = run_cli(["validate", "--repo", str(repo), "--target", "nope"], capsys)
    assert code == 2 and "unknown target 'nope'" in err


# ---------------------------------------------------------------- behaviour files


def test_prompt_equals_compares_with_the_prompt_as_written() -> None:
    match = Match(prompt_equals=RENAME_PROMPT)
    assert match.accepts(agent_prompt(RENAME_PROMPT), is_child=False)
    assert not match.accepts(agent_prompt(RENAME_PROMPT + " now"), is_child=False)


@pytest.mark.parametrize("directory", ["follows-skill", "broken"])
def test_demo_behaviours_validate(directory: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(
        [
            "validate",
            "--repo",
            str(ROOT / "agentic-evals"),
            "--behaviors",
            str(BEHAVIORS / directory),
        ],
        capsys,
    )
    assert code == 0, err


def _behaviors(tmp_path: Path, **files: str) -> Path:
    directory = tmp_path / "behaviors"
    directory.mkdir()
    for name, text in files.items():
        (directory / f"{name}.yaml").write_text(text, encoding="utf-8")
    return directory


RENAME = 'name: rename\nmatch: {prompt_contains: "renaming the table"}\nsteps:\n  - final: "done"\n'


@pytest.mark.parametrize(
    ("files", "message", "line"),
    [
        (
            {"typo": 'name: t\nmatch: {prompt_contain: "x"}\nsteps:\n  - final: "x"\n'},
            "match.prompt_contain: unknown field 'prompt_contain' (did you mean 'prompt_contains'?)",
            2,
        ),
        (
            {
                "rename": RENAME,
                "nobody": RENAME.replace("rename", "nobody").replace(
                    "renaming the table", "no case says this"
                ),
            },
            "match: behaviour 'nobody' matches no case prompt",
            2,
        ),
        (
            {
                "rename": RENAME,
                "also": RENAME.replace("name: rename", "name: also").replace(
                    "renaming the table", "customers"
                ),
            },
            "behaviours 'also', 'rename' all match the prompt of case 'routing-rename-table'",
            None,
        ),
        (
            {"bad-regex": 'name: r\nmatch: {prompt_regex: "(x"}\nsteps:\n  - final: "x"\n'},
            "invalid prompt_regex",
            2,
        ),
    ],
    ids=["unknown-key", "matches-nothing", "overlap", "bad-regex"],
)
def test_bad_behaviour_files_are_located_errors(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    message: str,
    line: int | None,
) -> None:
    directory = _behaviors(tmp_path, **files)
    code, _, err = run_cli(
        ["validate", "--repo", str(ROOT / "agentic-evals"), "--behaviors", str(directory)], capsys
    )
    assert code == 2
    assert "Traceback" not in err
    assert message in err, err
    if line is not None:
        assert f".yaml:{line}:" in err, err


def test_run_refuses_overlapping_behaviours_before_starting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = _behaviors(
        tmp_path,
        rename=RENAME,
        also=RENAME.replace("name: rename", "name: also").replace("renaming the table", "clients"),
    )
    runs = tmp_path / "runs"
    code, _, err = run_cli(
        [
            "run",
            "--repo",
            str(ROOT / "agentic-evals"),
            "--runs-dir",
            str(runs),
            "--scratch-root",
            str(tmp_path / "scratch"),
            "--behaviors",
            str(directory),
        ],
        capsys,
    )
    assert code == 2
    assert "all match the prompt of case 'routing-rename-table'" in err
    assert not runs.exists()


def test_unknown_key_in_repo_case_stops_run_with_did_you_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    replace_in(repo, CASE, "  forbidden:", "  forbiden:")
    code, _, err = run_cli(
        [
            "run",
            "--repo",
            str(repo),
            "--runs-dir",
            str(tmp_path / "runs"),
            "--behaviors",
            str(BEHAVIORS / "follows-skill"),
        ],
        capsys,
    )
    assert code == 2
    assert "did you mean 'forbidden'?" in err
    assert not (tmp_path / "runs").exists()


def test_run_reads_only_the_target_it_runs(tmp_path: Path) -> None:
    repo = copy_demo(tmp_path)
    write(
        repo,
        "targets/other/target.yaml",
        'target_id: "other"\nentry_skill: ".agents/skills/other/SKILL.md"\n',
    )
    with pytest.raises(InputError, match="skill file not found"):
        open_repo(repo, None)
    # What `run` loads: --target, else the configured default target, and nothing else.
    assert list(open_repo(repo, None, default_target_only=True).targets) == ["db-migrations"]
    assert list(open_repo(repo, None, target="db-migrations").targets) == ["db-migrations"]


# Every YAML file the project holds: eval repos, behaviours, fixtures, the isolation corpus.
YAML_FILES = sorted(
    path
    for folder in ("agentic-evals", "tests", "skill-eval")
    for pattern in ("*.yaml", "*.yml")
    for path in (ROOT / folder).rglob(pattern)
)


@pytest.mark.skipif(yamlsource.FAST_LOADER is None, reason="PyYAML without libyaml")
def test_the_fast_yaml_parser_gives_what_the_pure_python_one_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """libyaml loads valid files (yamlsource.FAST_LOADER): the same values, at the same lines and
    columns, as the pure-Python parser that reports the errors."""
    assert len(YAML_FILES) > 50
    fast = {path: yamlsource.load_yaml(path) for path in YAML_FILES}
    monkeypatch.setattr(yamlsource, "FAST_LOADER", None)
    for path in YAML_FILES:
        slow = yamlsource.load_yaml(path)
        assert fast[path].data == slow.data, path
        assert fast[path].positions == slow.positions, path
        assert fast[path].key_positions == slow.key_positions, path


def test_yaml_errors_are_the_pure_python_parsers_own(tmp_path: Path) -> None:
    """A file libyaml rejects is read again by PyYAML, whose message and position we report."""
    path = tmp_path / "bad.yaml"
    path.write_text("a: 1\nb: [2, 3\nc: 4\n", encoding="utf-8")
    with pytest.raises(InputError) as raised:
        yamlsource.load_yaml(path)
    assert raised.value.render() == (f"{path}:3:2: invalid YAML: expected ',' or ']', but got ':'")
