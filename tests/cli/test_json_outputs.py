"""Every command's `--json` object has a JSON Schema (schemas/output-*.schema.json), and what the
commands print on real inputs validates against it, refusals included.

These are the fast ones (no agent runs); `test_json_outputs_runs.py` checks the commands that
run agents, on runs of the demo's scripted behaviours."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import click
import jsonschema
import pytest

from evaluator.cli.main import cli, main
from evaluator.outputs import OUTPUT_MODELS, output_kind
from tests.conftest import ROOT, copy_demo

DEMO = ROOT / "agentic-evals"


def _json_commands(group: click.Group, prefix: str = "") -> list[str]:
    """Every command, group included (`history` lists trends itself), that takes `--json`."""
    context = click.Context(group)
    found = []
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None, name
        if any("--json" in getattr(p, "opts", ()) for p in command.params):
            found.append(f"{prefix}{name}")
        if isinstance(command, click.Group):
            found.extend(_json_commands(command, f"{prefix}{name} "))
    return found


def schema_of(command: str) -> dict[str, Any]:
    path = ROOT / "schemas" / f"{output_kind(command)}.schema.json"
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def check_output(command: str, text: str) -> Any:
    """The one JSON object `command --json` printed, validated against its schema (or, for a
    refusal, against output-error's)."""
    data = json.loads(text)
    kind = (
        "error"
        if isinstance(data, dict)
        and data.get("ok") is False
        and "exit_code" in data
        and set(data) == {"ok", "exit_code", "errors"}
        else command
    )
    jsonschema.validate(data, schema_of(kind))
    return data


def check_envelope(data: Any, code: int) -> None:
    """The envelope every `--json` object has (docs/cli.md, "The envelope"): `ok` and the exit
    code the command exited with; a run named by both `run_id` and `run_dir`."""
    if not isinstance(data, dict):  # `history`'s list, `setup-agents` for several agents
        return
    assert data["exit_code"] == code, data
    assert data["ok"] is (code == 0), data
    assert ("run_id" in data) == ("run_dir" in data), sorted(data)


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`agentic-eval ARGV --json`: its exit code, stdout and stderr, the printed object's
    envelope checked against that exit code."""
    with pytest.raises(SystemExit) as info:
        main([*argv, "--json"])
    out, err = capsys.readouterr()
    code = int(info.value.code or 0)
    if out.strip():
        # `score` prints its object on one line before the VERDICT line.
        text = out.splitlines()[0] if argv[0] == "score" else out
        check_envelope(json.loads(text), code)
    return code, out, err


def test_every_command_with_json_has_a_schema_and_every_schema_a_command() -> None:
    commands = _json_commands(cli)
    assert len(commands) >= 20
    assert sorted(commands) == sorted(c for c in OUTPUT_MODELS if c != "error")
    for command in OUTPUT_MODELS:
        assert (ROOT / "schemas" / f"{output_kind(command)}.schema.json").is_file(), command
        jsonschema.Draft202012Validator.check_schema(schema_of(command))


def test_every_schema_is_named_in_the_cli_reference() -> None:
    docs = (ROOT / "docs/cli.md").read_text(encoding="utf-8")
    for command in OUTPUT_MODELS:
        assert f"`schemas/{output_kind(command)}.schema.json`" in docs, command


# The envelope's documented exceptions (docs/cli.md): lists, which have no keys.
LISTS = {"history"}
# The same thing has one name in every object; a run's older names (beside them its
# `directory`) are kept only beside `run_id` and `run_dir`.
OLD_RUN_IDS = {"eval_id", "selftest_id"}


def _object_schemas(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The object shapes a schema allows (`setup-agents`: an object, or a list of them)."""
    branches = schema.get("anyOf", [schema])
    defs = schema.get("$defs", {})
    found = []
    for branch in branches:
        if "$ref" in branch:
            branch = defs[branch["$ref"].rsplit("/", 1)[1]]
        if branch.get("type") == "object":
            found.append(branch)
    return found


def test_every_json_command_has_the_envelope_and_the_same_names() -> None:
    """Every command with `--json` prints an object with `ok` and `exit_code` (the error
    object's keys), and names a run `run_id`/`run_dir` (an older name only beside them)."""
    for command in _json_commands(cli):
        shapes = _object_schemas(schema_of(command))
        if command in LISTS:
            assert not shapes, command
            continue
        assert shapes, command
        for shape in shapes:
            required = set(shape.get("required", []))
            assert {"ok", "exit_code"} <= required, command
            assert ("run_id" in required) == ("run_dir" in required), command
            if OLD_RUN_IDS & required:
                assert {"run_id", "run_dir"} <= required, command


def test_a_closed_schema_refuses_a_renamed_key() -> None:
    """The schemas are closed: a key renamed in a command's object is caught, not ignored."""
    good = {"ok": True, "exit_code": 0, "directory": "schemas", "stale": []}
    jsonschema.validate(good, schema_of("schemas check"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**good, "dir": "schemas"}, schema_of("schemas check"))


def test_validate_list_and_explain_on_the_demo(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("validate", "list", "explain"):
        code, out, err = run_json([command, "--repo", str(DEMO)], capsys)
        assert code == 0, err
        data = check_output(command, out)
        assert "errors" not in data or data["errors"] == []
    code, out, _ = run_json(["list", "--repo", str(DEMO), "--split", "train"], capsys)
    assert code == 0 and check_output("list", out)["entry_skill"]


def test_list_without_a_default_target_and_validate_with_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    (repo / "agentic-eval.yaml").unlink()  # two targets, none the default
    code, out, err = run_json(["list", "--repo", str(repo)], capsys)
    assert code == 0, err
    data = check_output("list", out)
    assert data["target"] is None and "entry_skills" in data and "entry_skill" not in data
    case = next((repo / "targets").glob("*/cases/*/*-*.yaml"))
    case.write_text(case.read_text() + "\nunknown_key: 1\n")
    code, out, _ = run_json(["validate", "--repo", str(repo)], capsys)
    data = check_output("validate", out)
    assert code == 2 and not data["ok"] and data["errors"][0]["path"]


@pytest.mark.parametrize(
    "argv",
    [
        ["list", "--repo", "/nonexistent/agentic-evals"],
        ["run", "--repo", str(DEMO), "--target", "no-such-target"],
        ["evaluate", "--repo", str(DEMO), "--target", "no-such-target"],
        ["triggers", "--repo", str(DEMO), "--target", "no-such-target"],
        ["gate", "--candidate", "/nonexistent/run"],
        ["compare", "/nonexistent/a", "/nonexistent/b"],
        ["session", "inspect", str(ROOT / "README.md")],
        ["convert", str(ROOT / "tests/fixtures/evals-json/kafka/good")],
    ],
    ids=lambda argv: argv[0] if argv[0] != "session" else "session-inspect",
)
def test_a_refusal_prints_the_error_object(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_json(argv, capsys)
    assert code != 0 and err
    data = json.loads(out)
    jsonschema.validate(data, schema_of("error"))
    assert data["exit_code"] == code


def test_score_refusal_is_the_error_object_on_one_line_before_the_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_json(["score", "--repo", str(DEMO), "--target", "no-such-target"], capsys)
    first, verdict = out.splitlines()
    assert code == 2 and verdict.startswith("VERDICT: ERROR")
    jsonschema.validate(json.loads(first), schema_of("error"))


def test_convert_session_and_schemas_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = tmp_path / "tally"
    shutil.copytree(ROOT / "tests/fixtures/red_team/round4-suite/tally", skill)
    code, out, err = run_json(["convert", str(skill), "--out", str(tmp_path / "evals")], capsys)
    assert code == 0, err
    assert check_output("convert", out)["files"]

    for recorded in ("codex-exec.jsonl", "claude-code.jsonl", "gemini-cli.jsonl"):
        session = ROOT / "tests/fixtures/recorded" / recorded
        code, out, err = run_json(
            ["session", "inspect", str(session), "--workspace", str(tmp_path)], capsys
        )
        assert code == 0, err
        assert check_output("session inspect", out)["commands"], recorded

    home = tmp_path / "codex-home"
    home.mkdir()
    thread = "019a0000-0000-7000-8000-000000000000"
    argv = ["session", "locate", "--codex-home", str(home), "--thread", thread]
    code, out, _ = run_json(argv, capsys)
    assert code == 1 and check_output("session locate", out)["status"] == "not-found"

    code, out, err = run_json(["schemas", "check"], capsys)
    assert code == 0, err
    assert check_output("schemas check", out)["ok"]


def test_in_session_attempts_and_the_commands_over_their_finished_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`attempt new`/`collect` make a finished run without an agent (the child session is not
    found: blocked); judge, gate, compare and history then read that run."""
    repo = copy_demo(tmp_path / "src")
    case = "routing-add-column"
    runs = tmp_path / "runs"
    common = ["--runs-dir", str(runs), "--run-id", "live"]
    code, out, err = run_json(
        [
            "attempt",
            "new",
            case,
            "--repo",
            str(repo),
            *common,
            "--case-workspace-root",
            str(tmp_path / "attempts"),
            "--case",
            case,
        ],
        capsys,
    )
    assert code == 0, err
    assert check_output("attempt new", out)["prompt"]
    store = tmp_path / "codex-home"
    store.mkdir()
    parent = "01a20000-0000-7000-8000-000000000000"
    code, out, err = run_json(
        [
            "attempt",
            "collect",
            case,
            *common,
            "--codex-home",
            str(store),
            "--parent-thread",
            parent,
        ],
        capsys,
    )
    # no child session: the agent never started, an outage (`score` has no score for the run):
    # exit 3 as `run` and `judge` give it (it once gave 1)
    assert code == 3, err
    collected = check_output("attempt collect", out)
    assert collected["case_status"] == "blocked" and collected["exit_code"] == 3
    run = runs / "live"

    # judged again, the outage is still one: exit 3, as `run` gives (it once gave 1)
    code, out, err = run_json(["judge", str(run)], capsys)
    assert code == 3, err
    assert check_output("judge", out)["cases"][0]["case_id"] == case
    with pytest.raises(SystemExit) as info:
        main(["judge", str(run)])
    out = capsys.readouterr().out
    assert info.value.code == 3
    assert (
        f"exit 3: the agent's model or tooling failed on 1 case, which got no verdict: {case}"
        in out
    )
    # the report's summary line, as `run` prints it: nothing judged, the block an outage's
    assert (
        "verified pass rate: no verdict: 0 of 1 cases judged; 1 of 1 blocked"
        " (not-started 1, no score)\n" in out
    )
    assert (
        "- Verified pass rate: no verdict: 0 of 1 cases judged; 1 of 1 blocked"
        in (run / "report.md").read_text()
    )
    # an outage-blocked run has no score: gate refuses it, with the error object
    code, out, err = run_json(["gate", "--candidate", str(run), "--current", str(run)], capsys)
    assert code == 3 and "no score" in check_output("gate", out)["errors"][0]["message"]
    # nothing decided on both sides: no comparison (exit 3), its coverage said
    code, out, err = run_json(["compare", str(run), str(run)], capsys)
    assert code == 3, err
    assert check_output("compare", out)["coverage"] == 0.0
    code, out, err = run_json(["history", "import", str(runs)], capsys)
    assert code == 0, err
    assert check_output("history import", out)["recorded"] == ["live"]
    code, out, err = run_json(["history", "--runs-dir", str(runs)], capsys)
    assert code == 0, err
    assert check_output("history", out)[0]["case_id"] == case


def test_attempt_new_for_a_case_this_machine_cannot_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path / "src")
    case = "routing-add-column"
    path = next(repo.glob(f"targets/*/cases/*/{case}.yaml"))
    path.write_text(path.read_text() + "needs:\n  programs: [no-such-program-on-this-machine]\n")
    code, out, err = run_json(
        [
            "attempt",
            "new",
            case,
            "--repo",
            str(repo),
            "--runs-dir",
            str(tmp_path / "runs"),
            "--run-id",
            "live",
            "--case-workspace-root",
            str(tmp_path / "attempts"),
            "--case",
            case,
        ],
        capsys,
    )
    assert code == 0, err
    made = check_output("attempt new", out)
    assert made["blocked"] == "environment" and "prompt" not in made


def test_setup_agents_with_the_pinned_clis_already_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing is installed (stand-ins that say the pinned version are in the prefix, as
    `stub_agent_clis` makes them): one agent prints one object, several a list."""
    from evaluator.adapters import get_adapter
    from evaluator.adapters.claude import binary as claude_binary
    from evaluator.adapters.codex import binary as codex_binary

    versions = {
        "codex": f"codex-cli {codex_binary.PINNED_VERSION}",
        "claude": f"{claude_binary.PINNED_VERSION} (Claude Code)",
    }
    for name, prefix in (
        ("codex", tmp_path / "one"),
        ("codex", tmp_path / "two/codex"),
        ("claude", tmp_path / "two/claude"),
    ):
        pinned = get_adapter(name).cli()
        assert pinned is not None
        stub = prefix / pinned.bin_in_prefix
        stub.parent.mkdir(parents=True, exist_ok=True)
        stub.write_text(f"#!/bin/sh\necho '{versions[name]}'\n", encoding="utf-8")
        stub.chmod(0o755)
    code, out, err = run_json(["setup-agents", "--prefix", str(tmp_path / "one")], capsys)
    assert code == 0, err
    assert check_output("setup-agents", out)["installed"] is False
    argv = ["setup-agents", "--agent", "codex", "--agent", "claude"]
    code, out, err = run_json([*argv, "--prefix", str(tmp_path / "two")], capsys)
    assert code == 0, err
    assert [a["agent"] for a in check_output("setup-agents", out)] == ["codex", "claude"]
