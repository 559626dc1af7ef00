"""A user with a real model past `run`: the model judge with its own key (`--judge-model`,
`--judge-votes`, `--judge-base-url`, `--judge-api-key-env`) through `run`, `judge`, `score`,
`evaluate --baseline none`, a subjective `evaluate` (the judge scores a rubric) and `triggers`,
then `report --html`, `compare --junit`, `history`, `export atif`, `export benchmark` and
`selftest`, with a CI step summary (`GITHUB_STEP_SUMMARY`) and `run --junit`, on what the runs
left, with the agent and the judge both printing every credential they hold. No file of the
runs root (the history database included), of the kept scratch (where the judge's agent homes
live while it answers) and no line any command printed may hold any form of any of them (issue:
credentials never reach an artifact, on every command)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from evaluator.adapters import adapter_names
from evaluator.evaluate.rubric import RUBRIC_DIR
from evaluator.modelserver.behaviors import load_behavior_file
from evaluator.workspace.naming import digest_name
from tests.conftest import copy_demo
from tests.leaks import (
    ASCII_SECRET,
    CODEX_KEY,
    NON_ASCII_SECRET,
    declare_case_secrets,
    leak_steps,
    leaks_in,
    write_leak_behaviour,
)
from tests.support import behavior, codex_or_skip, run_command, scratch_dir, serving

pytestmark = [pytest.mark.codex, pytest.mark.slow]

CASE = "routing-add-column"
# No rule compiles this: only the model judge decides it.
PROSE = "The final answer explains the rollback in plain words for a reviewer."
JUDGE_KEY = "sk-proj-J7uDg3Ke5Wq1Zr8Tn2Lm4Xc6Vb9Hs0Pa3Yf5Ro7Ei1Nt"


def _rubric_evaluation(repo: Path) -> Path:
    rubric = {
        "rubric_id": "clarity",
        "title": "Clarity",
        "dimensions": [{"name": "clarity", "scale": [1, 2, 3]}],
    }
    (repo / "rubrics").mkdir(exist_ok=True)
    (repo / "rubrics/clarity.yaml").write_text(yaml.safe_dump(rubric, sort_keys=False))
    evaluation = repo / "evaluations/subjective/clarity.yaml"
    evaluation.parent.mkdir(parents=True, exist_ok=True)
    evaluation.write_text(
        'eval_id: "clarity"\nmode: "subjective"\ntitle: "Clarity"\n'
        'rubric: "rubrics/clarity.yaml"\ntarget_id: "db-migrations"\nsuites: ["routing"]\n'
    )
    return evaluation


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evaluator", *args],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env=env,
    )


def test_the_judge_and_every_later_command_leak_no_credential(tmp_path: Path) -> None:
    codex_or_skip()
    repo = copy_demo(tmp_path)
    declare_case_secrets(repo / f"targets/db-migrations/cases/routing/{CASE}.yaml", PROSE)
    leak = write_leak_behaviour(tmp_path / "behaviors")
    # A judge model that repeats every credential it was shown or holds.
    said = f"My key is {JUDGE_KEY}; theirs {CODEX_KEY}; {ASCII_SECRET} {NON_ASCII_SECRET}"
    verdict = {"final_json": {"verdict": "not-met", "rationale": said, "refs": []}}
    score = {"final_json": {"score": 2, "rationale": said, "refs": []}}
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_", "CODEX_API"))
    }
    runs = tmp_path / "runs"
    # A CI job: its Markdown summary is appended to this file (searched with the runs root).
    env.update(
        {
            "GATEWAY_KEY": CODEX_KEY,
            "JUDGE_KEY": JUDGE_KEY,
            "GITHUB_STEP_SUMMARY": str(runs / "step-summary.md"),
        }
    )
    outputs: dict[str, str] = {}

    def command(label: str, *args: str) -> subprocess.CompletedProcess[str]:
        done = _cli(env, *args)
        outputs[f"{label} stdout"] = done.stdout
        outputs[f"{label} stderr"] = done.stderr
        return done

    with (
        scratch_dir() as scratch,
        serving(
            behavior("judge", PROSE, [verdict]),
            behavior("rubric", 'The dimension (JSON string): "clarity"', [score]),
            load_behavior_file(leak, adapter_names()),
        ) as server,
    ):
        # The agent on the real-provider path, its key in GATEWAY_KEY.
        agent = [
            "--agent",
            "codex-exec",
            "--model",
            "mock-model",
            "--base-url",
            server.base_url,
            "--api-key-env",
            "GATEWAY_KEY",
        ]
        judge = [
            "--judge-model",
            "judge-model",
            "--judge-votes",
            "3",
            "--judge-base-url",
            server.base_url,
            "--judge-api-key-env",
            "JUDGE_KEY",
            "--scratch-root",
            str(scratch),
        ]
        done = command(
            "run",
            "run",
            "--repo",
            str(repo),
            "--runs-dir",
            str(runs),
            *agent,
            "--case",
            CASE,
            "--run-id",
            "leak",
            "--keep-scratch",
            "--junit",
            str(runs / "leak.junit.xml"),
            *judge,
        )
        assert done.returncode in (0, 1), done.stderr
        run_dir = runs / "leak"
        result = json.loads((run_dir / f"case-results/{CASE}.json").read_text())
        [entry] = [a for a in result["assertions"] if a["summary"] == PROSE]
        # The judge model really decided it, three times.
        assert entry["decided_by"] == "model", entry
        assert [r.behavior for r in server.records].count("judge") >= 3
        done = command("judge", "judge", str(run_dir), *judge)
        assert done.returncode in (0, 1), done.stderr
        done = command(
            "score",
            "score",
            "--repo",
            str(repo),
            "--runs-dir",
            str(runs),
            *agent,
            "--case",
            CASE,
            "--run-id",
            "scored",
            "--keep-scratch",
            *judge,
        )
        assert done.returncode in (0, 1), done.stderr
        assert (runs / f"scored/case-results/{CASE}.json").is_file()
        done = command(
            "evaluate",
            "evaluate",
            "--repo",
            str(repo),
            "--runs-dir",
            str(runs),
            "--baseline",
            "none",
            *agent,
            "--case",
            CASE,
            "--run-id",
            "evaluated",
            "--keep-scratch",
            *judge,
        )
        assert done.returncode in (0, 1), done.stderr
        assert (runs / "evaluated/evaluation.json").is_file(), done.stderr
        # A subjective evaluation: the judge scores a rubric dimension, and repeats the keys.
        done = command(
            "evaluate rubric",
            "evaluate",
            "--repo",
            str(repo),
            "--runs-dir",
            str(runs),
            "--evaluation",
            str(_rubric_evaluation(repo)),
            *agent,
            "--case",
            CASE,
            "--run-id",
            "scored-rubric",
            "--keep-scratch",
            *judge,
        )
        assert done.returncode in (0, 1), done.stderr
        assert list((runs / "scored-rubric").rglob(f"attempts/attempt-01/{RUBRIC_DIR}/*.json"))
        triggers = tmp_path / "triggers.csv"
        triggers.write_text("id,should_trigger,prompt\nfires,true,Add a default currency column\n")
        done = command(
            "triggers",
            "triggers",
            "--repo",
            str(repo),
            "--runs-dir",
            str(runs),
            "--triggers",
            str(triggers),
            "--attempts",
            "1",
            *agent,
            "--run-id",
            "triggered",
            "--keep-scratch",
            *judge,
        )
        assert done.returncode in (0, 1), done.stderr
        assert (runs / "triggered/report.md").is_file(), done.stderr
        # The agents sent the keys as a provider's client does (so they held them).
        sent = {r.credential for r in server.records}
        assert len(sent) == 2, sent
        shutil.copytree(run_dir, runs / "again")
        for label, args in {
            "report": ("report", str(run_dir), "--html"),
            "compare": (
                "compare",
                str(run_dir),
                str(runs / "again"),
                "--junit",
                str(runs / "compare.junit.xml"),
            ),
            "selftest": (
                "selftest",
                "--repo",
                str(repo),
                "--case",
                "bootstrap-reads-skill-first",
                "--runs-dir",
                str(runs),
                "--scratch-root",
                str(scratch),
            ),
            "history": ("history", "--runs-dir", str(runs), "--json"),
            "export atif": ("export", "atif", str(run_dir)),
            "export benchmark": (
                "export",
                "benchmark",
                str(run_dir),
                str(runs / "again"),
                "--out",
                str(runs / "benchmark"),
            ),
        }.items():
            done = command(label, *args)
            assert done.returncode in (0, 1), (label, done.stderr)
        assert (runs / "history.db").is_file() and (run_dir / "report.html").is_file()
        assert (runs / "step-summary.md").is_file() and (runs / "compare.junit.xml").is_file()
        keys = {"agent key": CODEX_KEY, "judge key": JUDGE_KEY}
        assert leaks_in(keys, (runs, scratch), outputs) == []
        # A trigger attempt is given no case's secrets: there the values are only the scripted
        # model's own words (its literal command, its final answer), which are no run's secret.
        declared = {"API_TOKEN": ASCII_SECRET, "PASSPHRASE": NON_ASCII_SECRET}
        found = leaks_in(declared, (runs, scratch), outputs)
        # The trigger run's folders: its run directory, and its part of the scratch (named by
        # a digest of its run id, `workspace/naming.py`).
        trigger_run = ("/triggered/", f"/{digest_name('triggered')}/")
        assert [leak for leak in found if not any(place in leak for place in trigger_run)] == []


def test_a_stopped_or_timed_out_attempt_leaks_no_credential(tmp_path: Path) -> None:
    """Fault paths: the evaluator stopped by SIGTERM mid-attempt, an attempt killed at its
    timeout and an agent that fails (its model refuses a request), each after the agent printed every credential, with the
    scratch kept."""
    codex_or_skip()
    repo = copy_demo(tmp_path)
    declare_case_secrets(repo / f"targets/db-migrations/cases/routing/{CASE}.yaml")
    leak = write_leak_behaviour(tmp_path / "behaviors")
    steps = leak_steps()
    # The agent hangs after printing everything: it is stopped or timed out there (in short
    # sleeps: Codex ends a command of its own after 10 s).
    hanging = [*steps[:-1], *[{"cmd": "sleep 8"}] * 20, steps[-1]]
    data = yaml.safe_load(leak.read_text())
    data["steps"] = hanging
    leak.write_text(yaml.safe_dump(data, allow_unicode=True))
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_", "CODEX_API"))
    }
    env["GATEWAY_KEY"] = CODEX_KEY
    runs = tmp_path / "runs"
    outputs: dict[str, str] = {}
    with (
        scratch_dir() as scratch,
        serving(load_behavior_file(leak, adapter_names())) as server,
    ):

        def run(run_id: str, *extra: str, base_url: str = server.base_url) -> list[str]:
            return run_command(
                repo,
                runs,
                scratch,
                "--agent",
                "codex-exec",
                "--model",
                "mock-model",
                "--base-url",
                base_url,
                "--api-key-env",
                "GATEWAY_KEY",
                "--case",
                CASE,
                "--run-id",
                run_id,
                "--keep-scratch",
                *extra,
            )

        proc = subprocess.Popen(
            run("stopped"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        deadline = time.time() + 300
        # The request answered with `sleep` is the one after the printing steps.
        while time.time() < deadline and len(server.records) < len(steps) and proc.poll() is None:
            time.sleep(0.2)
        time.sleep(1)
        proc.send_signal(signal.SIGTERM)
        outputs["stopped stdout"], outputs["stopped stderr"] = proc.communicate(timeout=120)
        manifest = json.loads((runs / "stopped/manifest.json").read_text())
        assert manifest["run_state"] == "interrupted", outputs["stopped stderr"]
        timed_out = _cli(env, *run("timed-out", "--timeout", "15")[3:])
        outputs["timed-out stdout"], outputs["timed-out stderr"] = (
            timed_out.stdout,
            timed_out.stderr,
        )
        attempt = json.loads(
            (runs / f"timed-out/case-artifacts/{CASE}/attempts/attempt-01/attempt.json").read_text()
        )
        assert attempt["timed_out"], attempt
        # The agent fails (its model refuses the next request) after printing everything.
        data["steps"] = [*steps[:-1], {"http_error": 400}]
        crash = tmp_path / "crash/crash.yaml"
        crash.parent.mkdir()
        crash.write_text(yaml.safe_dump(data, allow_unicode=True))
        with serving(load_behavior_file(crash, adapter_names())) as crashing:
            crashed = _cli(env, *run("crashed", base_url=crashing.base_url)[3:])
        outputs["crashed stdout"], outputs["crashed stderr"] = crashed.stdout, crashed.stderr
        attempt = json.loads(
            (runs / f"crashed/case-artifacts/{CASE}/attempts/attempt-01/attempt.json").read_text()
        )
        assert attempt["exit_code"] != 0, attempt
        secrets = {
            "agent key": CODEX_KEY,
            "API_TOKEN": ASCII_SECRET,
            "PASSPHRASE": NON_ASCII_SECRET,
        }
        assert leaks_in(secrets, (runs, scratch), outputs) == []
