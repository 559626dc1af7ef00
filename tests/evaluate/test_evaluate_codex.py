"""`agentic-eval evaluate` with the real Codex CLI on the demo target: scripted agents that follow
what SKILL.md tells them (`behaviors/reads-skill/`), so the skill's uplift over no skill, a
harmful edit's damage and the A/A noise are real differences in behaviour."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from evaluator.cli.main import run_cli
from tests.conftest import ROOT
from tests.support import claude_or_skip, codex_or_skip, scratch_dir

pytestmark = pytest.mark.slow
READS_SKILL = ROOT / "agentic-evals/targets/db-migrations/behaviors/reads-skill"
SKILL = ROOT / ".agents/skills/db-migrations/SKILL.md"
CASES = ("routing-add-column", "routing-backfill", "workflow-keeps-shipped-migrations")
K = 3
# The CI slice of skill vs no skill: three cases, K = 5, both agents (30 attempts per agent
# instead of 18 at K = 3: about 30 s more per agent on a 2-core machine).
SLICE_K = 5


AGENTS = [
    pytest.param("codex-exec", marks=pytest.mark.codex),
    pytest.param("claude-code", marks=pytest.mark.claude),
]


def _evaluate(
    tmp_path: Path,
    run_id: str,
    *args: str,
    agent: str = "codex-exec",
    behaviors: Path = READS_SKILL,
    cases: tuple[str, ...] = CASES,
    attempts: int = K,
) -> tuple[int, dict, Path]:  # type: ignore[type-arg]
    (codex_or_skip if agent == "codex-exec" else claude_or_skip)()
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        argv = ["evaluate", "--agent", agent, "--behaviors", str(behaviors)]
        argv += ["--attempts", str(attempts)]
        argv += [a for case in cases for a in ("--case", case)]
        argv += ["--runs-dir", str(runs), "--scratch-root", str(scratch), "--run-id", run_id]
        code = run_cli([*argv, *args])
    directory = runs / run_id
    return code, json.loads((directory / "evaluation.json").read_text()), directory


@pytest.mark.parametrize("agent", AGENTS)
def test_the_skill_shows_its_uplift_over_no_skill(tmp_path: Path, agent: str) -> None:
    code, result, directory = _evaluate(
        tmp_path, "uplift", "--baseline", "none", agent=agent, attempts=SLICE_K
    )
    assert code == 0
    without, with_skill = result["variants"]
    total = len(CASES) * SLICE_K
    assert (without["label"], without["kind"]) == ("without_skill", "none")
    assert (without["passed"], without["counted"]) == (0, total)
    assert (with_skill["passed"], with_skill["counted"]) == (total, total)
    (comparison,) = result["comparisons"]
    assert comparison["overall"]["mean_difference"] == 1.0
    # Each case on its own: 5/5 against 0/5 is Boschloo p = 1/1024 one-sided, 3/1024 after Holm
    # over three cases; Newcombe's interval for the +100 pp is [+38.6, +100] pp.
    for case in comparison["cases"]:
        assert (case["passed_a"], case["total_a"], case["passed_b"], case["total_b"]) == (
            0,
            SLICE_K,
            SLICE_K,
            SLICE_K,
        )
        assert case["significant"] and case["difference"] == 1.0
        assert case["p_holm"] == pytest.approx(3 / 1024)
        assert case["interval"]["low"] == pytest.approx(0.3855, abs=1e-3)
    # Overall, the three cases are the pairs: the sign-flip test over three cases cannot go
    # below 1/8 whatever K is, so the overall uplift is reported as not significant, honestly.
    assert comparison["overall"]["p"] == 0.125 and not comparison["overall"]["significant"]
    assert comparison["headline"]["call"] == "no-difference"
    check = without["contamination"]
    assert check["attempts_checked"] == total and check["contaminated_attempts"] == []
    assert {"discovery", "session", "content"} <= set(check["layers"])
    assert with_skill["contamination"] is None
    # Each variant is a run of its own, in the public layout, with its source manifest.
    for label in ("without_skill", "with_skill"):
        run = directory / "variants" / label / "run"
        manifest = json.loads((run / "manifest.json").read_text())
        assert manifest["run_state"] == "completed"
        assert sorted(manifest["resolved_case_ids"]) == sorted(CASES)
        assert manifest["variant"] == {
            "label": label,
            "evaluation_id": directory.name,
            "compared": ["without_skill", "with_skill"],
        }
        other = "with_skill" if label == "without_skill" else "without_skill"
        title = f"variant {label} of evaluation {directory.name} (against {other})"
        assert (run / "report.md").read_text().startswith(f"# Evaluation report: {title}\n")
        assert (directory / "variants" / label / "source-manifest.json").is_file()
    snapshot = directory / "variants/without_skill/run/case-artifacts/routing-backfill"
    files = json.loads((snapshot / "attempts/attempt-01/workspace/manifest.json").read_text())
    assert not any(".agents/skills" in str(entry) for entry in files.get("files", files))
    report = (directory / "eval-report.md").read_text()
    assert "## Head-to-Head" in report and "by layers: discovery, session" in report
    benchmark = json.loads((directory / "benchmark.json").read_text())
    # Per expectation: without the skill, routing-add-column's forbidden "another kind of
    # change's reference was consulted" holds (its `cat` of that reference failed: no file,
    # nothing shown), so that variant passes 1 of 2 expectations there: 0.1667 against 1.0.
    assert benchmark["run_summary"]["without_skill"]["pass_rate"]["mean"] == pytest.approx(
        1 / 6, abs=1e-4
    )
    assert benchmark["run_summary"]["delta"]["pass_rate"] == "+0.83"
    # skill-creator's aggregate_benchmark.py reads every `eval-*` entry of the folder it is
    # given as an eval's directory; beside eval-report.md (a file) it failed (seventh new
    # user). The gradings sit under skill-creator/, as a run's do, with nothing else there.
    gradings = directory / "skill-creator"
    entries = sorted(gradings.glob("eval-*"))
    assert [e.name for e in entries] == sorted(f"eval-{case}" for case in CASES)
    assert all(e.is_dir() and (e / "eval_metadata.json").is_file() for e in entries)
    for entry in entries:
        for label in ("without_skill", "with_skill"):
            runs = sorted((entry / label).glob("run-*/grading.json"))
            assert len(runs) == SLICE_K, (entry, label)
    assert not [e for e in directory.glob("eval-*") if e.is_dir()]


@pytest.mark.codex
def test_a_harmful_edit_is_worse_on_exactly_the_case_it_breaks(tmp_path: Path) -> None:
    rule = "Never edit an existing migration file: migrations that have shipped are\nimmutable."
    text = SKILL.read_text()
    assert rule in text
    harmful = tmp_path / "harmful.md"
    harmful.write_text(text.replace(rule, ""))
    code, result, _ = _evaluate(
        tmp_path, "harmful", "--baseline", "current", "--candidate", str(harmful)
    )
    assert code == 1  # a compared variant hurts a case
    (comparison,) = result["comparisons"]
    assert comparison["hurt_cases"] == ["workflow-keeps-shipped-migrations"]
    assert comparison["cases"][0]["case_id"] == "workflow-keeps-shipped-migrations"
    assert [c["hurt"] for c in comparison["cases"]] == [True, False, False]


@pytest.mark.codex
def test_a_a_reports_no_significant_difference(tmp_path: Path) -> None:
    code, result, _ = _evaluate(tmp_path, "aa", "--aa")
    assert code == 0
    (comparison,) = result["comparisons"]
    assert comparison["headline"]["call"] == "no-difference"
    assert comparison["hurt_cases"] == []
    assert result["noise_floor"] == 0.0


@pytest.mark.codex
def test_a_a_with_random_branches_varies_and_reports_no_significant_difference(
    tmp_path: Path,
) -> None:
    """The demo's flaky behaviour routes wrong at random (`when: {chance: 0.4}`): each lane draws
    its own branches, as two runs of a real model would, so the two lanes differ; the
    difference is noise, and the evaluation says so."""
    flaky = ROOT / "agentic-evals/targets/db-migrations/behaviors/flaky"
    code, result, directory = _evaluate(
        tmp_path, "aa-chance", "--aa", behaviors=flaky, cases=("routing-add-column",), attempts=5
    )
    assert code == 0
    first, second = result["variants"]
    outcomes = []
    for label in (first["label"], second["label"]):
        case = json.loads(
            (directory / f"variants/{label}/run/case-results/routing-add-column.json").read_text()
        )
        outcomes.append([a["status"] for a in case["attempts"]])
    assert outcomes[0] != outcomes[1]  # independent draws, not one pattern twice
    assert all(0 < o.count("pass") < 5 for o in outcomes)  # both lanes really take both branches
    (comparison,) = result["comparisons"]
    assert comparison["headline"]["call"] == "no-difference"
    assert not any(c["significant"] for c in comparison["cases"])
    assert result["noise_floor"] > 0


@pytest.mark.codex
def test_a_baseline_reaching_a_planted_copy_is_contaminated_rerun_and_blocked(
    tmp_path: Path,
) -> None:
    """A copy of the skill planted outside every workspace (no jail, so the agent can reach it):
    the no-skill attempt that reads it is contaminated, rerun once, contaminated again, and its
    case is blocked with that reason; nothing of it is counted."""
    plant = Path("/var/tmp") / f"agentic-eval-plant-{uuid.uuid4().hex[:8]}" / "db-migrations"
    shutil.copytree(SKILL.parent, plant)
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    (behaviors / "plant.yaml").write_text(
        json.dumps(
            {
                "name": "reads-a-planted-copy",
                "match": {"prompt_contains": "orders.total_cents is NULL"},
                "steps": [{"cmd": f"cat {plant}/SKILL.md"}, {"final": "done"}],
            }
        )
    )
    try:
        _, result, directory = _evaluate(
            tmp_path,
            "planted",
            "--baseline",
            "none",
            "--sandbox",
            "none",
            behaviors=behaviors,
            cases=("routing-backfill",),
            attempts=1,
        )
    finally:
        shutil.rmtree(plant.parent, ignore_errors=True)
    without = result["variants"][0]
    assert (without["passed"], without["counted"]) == (0, 0)
    check = without["contamination"]
    assert check["blocked_cases"] == ["routing-backfill"]
    assert [item.split(":")[0] for item in check["contaminated_attempts"]] == [
        "routing-backfill/attempt-01",
        "routing-backfill/attempt-02",
    ]
    case = json.loads(
        (directory / "variants/without_skill/run/case-results/routing-backfill.json").read_text()
    )
    assert case["status"] == "blocked"
    assert all(a["reason"].startswith("contaminated: ") for a in case["attempts"])
    assert (
        "contaminated (not counted): routing-backfill/attempt-01"
        in (directory / "eval-report.md").read_text()
    )


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(cwd), "-c", "user.email=t@t", "-c", "user.name=t", *args],
        capture_output=True,
        check=True,
    )


@pytest.mark.codex
def test_an_upstream_ab_file_compares_two_revisions(tmp_path: Path) -> None:
    """`evaluations/ab/<id>.yaml` as upstream writes it: two `skill_ref`s of the source
    workspace, each checked out into its own worktree; `feature` drops the immutability rule."""
    source = tmp_path / "source"
    shutil.copytree(SKILL.parent, source / ".agents/skills/db-migrations")
    shutil.copytree(ROOT / "agentic-evals", source / "agentic-evals")
    shutil.rmtree(source / "agentic-evals/targets/skill-eval")
    evaluation = source / "agentic-evals/evaluations/ab/v1-vs-v2.yaml"
    evaluation.parent.mkdir(parents=True)
    evaluation.write_text(
        'eval_id: "v1-vs-v2"\nmode: "ab"\ntitle: "v1 against v2"\nvariants:\n'
        '  a: {label: "v1", skill_path: ".agents/skills/db-migrations", skill_ref: "main"}\n'
        '  b: {label: "v2", skill_path: ".agents/skills/db-migrations", skill_ref: "feature"}\n'
        'target_id: "db-migrations"\nsuites: ["workflow"]\n'
    )
    _git(source, "init", "-q", "-b", "main")
    _git(source, "add", "-A")
    _git(source, "commit", "-q", "-m", "v1")
    _git(source, "checkout", "-q", "-b", "feature")
    skill = source / ".agents/skills/db-migrations/SKILL.md"
    rule = "Never edit an existing migration file: migrations that have shipped are\nimmutable."
    skill.write_text(skill.read_text().replace(rule, ""))
    _git(source, "commit", "-q", "-am", "v2")
    _git(source, "checkout", "-q", "main")
    code, result, directory = _evaluate(
        tmp_path,
        "ab",
        "--repo",
        str(source / "agentic-evals"),
        "--evaluation",
        str(evaluation),
        cases=("workflow-keeps-shipped-migrations",),
        attempts=K,
    )
    assert code == 1
    assert [v["label"] for v in result["variants"]] == ["v1", "v2"]
    assert all(v["kind"] == "rev" and v["commit"] for v in result["variants"])
    (comparison,) = result["comparisons"]
    assert comparison["hurt_cases"] == ["workflow-keeps-shipped-migrations"]
    worktrees = subprocess.run(
        ["git", "-C", str(source), "worktree", "list"], capture_output=True, text=True, check=True
    )
    assert len(worktrees.stdout.strip().splitlines()) == 1  # both removed
    assert (directory / "variants/v2/run/manifest.json").is_file()


@pytest.mark.codex
def test_a_stored_no_skill_run_is_reused_only_when_it_matches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = ("routing-backfill",)
    _, first, directory = _evaluate(tmp_path, "first", "--baseline", "none", cases=cases)
    stored = directory / "variants/without_skill/run"
    code, result, again = _evaluate(tmp_path, "again", "--baseline-from", str(stored), cases=cases)
    assert code == 0
    reused, with_skill = result["variants"]
    assert with_skill["passed"] == K
    assert (reused["label"], reused["kind"]) == ("without_skill", "reused")
    assert (reused["passed"], reused["counted"]) == (0, K)
    assert reused["contamination"]["attempts_checked"] == K  # the stored run's checks
    assert result["interleaved"] is False
    assert (again / "variants/without_skill/run/manifest.json").is_file()
    assert first["variants"][0]["passed"] == reused["passed"]
    capsys.readouterr()
    with scratch_dir() as scratch:
        code = run_cli(
            [
                "evaluate",
                "--behaviors",
                str(READS_SKILL),
                "--case",
                cases[0],
                "--attempts",
                "2",
                "--baseline-from",
                str(stored),
                "--runs-dir",
                str(tmp_path / "runs"),
                "--scratch-root",
                str(scratch),
                "--run-id",
                "refused",
            ]
        )
    assert code == 2
    assert "another attempts per case: the run has 3, this evaluation 2" in capsys.readouterr().err
    assert not (tmp_path / "runs/refused").exists()


MAKE_OWN_SKILL_FOLDER = (
    'import os; d = os.path.join(".claude", "skills", "db-migrations", "notes");'
    ' os.makedirs(d); open(os.path.join(d, "own.md"), "w").write("mine")'
)


@pytest.mark.claude
def test_round_eight_a_baseline_cannot_drop_its_failure_by_faking_contamination(
    tmp_path: Path,
) -> None:
    """Red team, round 8 (docs/isolation.md): a failing no-skill attempt makes a same-name
    folder where Claude Code finds skills (`.claude/skills/db-migrations/`, holding only a note
    of its own; Codex's sandbox keeps `.agents` read-only). It was contaminated, blamed on the
    eval, and its failure left the baseline (counted 0 of 0); nothing of the skill reached it,
    so it is the agent's: counted, not passed."""
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    (behaviors / "fake.yaml").write_text(
        json.dumps(
            {
                "name": "fakes-contamination",
                "match": {"prompt_contains": "orders.total_cents is NULL"},
                "steps": [
                    # (Claude Code asks before a command that names `.claude/`; Python's
                    # words are not checked.)
                    {"cmd": f"python3 -c '{MAKE_OWN_SKILL_FOLDER}'"},
                    {"final": "done"},
                ],
            }
        )
    )
    _, result, directory = _evaluate(
        tmp_path,
        "faked",
        "--baseline",
        "none",
        agent="claude-code",
        behaviors=behaviors,
        cases=("routing-backfill",),
        attempts=1,
    )
    without = result["variants"][0]
    assert (without["passed"], without["counted"]) == (0, 1)
    assert without["contamination"]["blocked_cases"] == []
    case = json.loads(
        (directory / "variants/without_skill/run/case-results/routing-backfill.json").read_text()
    )
    final = case["attempts"][-1]
    assert final["reason"].startswith("contaminated: the agent reached for the skill")
    assert final["blocked_by"] == "agent"
    (item,) = without["contamination"]["contaminated_attempts"][-1:]
    assert item.endswith("(the agent's own doing: counted as not passed)")
    assert "contaminated (not counted)" not in (directory / "eval-report.md").read_text()


@contextmanager
def _serving_folder(folder: Path) -> Iterator[int]:
    """An HTTP server on 127.0.0.1 serving `folder` (the skill's public home, as a baseline
    agent would find it on the web), its port, while the block runs."""
    handler = partial(SimpleHTTPRequestHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


@pytest.mark.claude
def test_round_ten_a_baseline_that_downloads_the_skill_into_its_workspace_is_contaminated(
    tmp_path: Path,
) -> None:
    """Red team, round 10 (docs/isolation.md): a no-skill attempt downloads the skill's
    SKILL.md (Claude Code's commands have a network), printing it while it keeps a copy in the
    workspace with one line of its own added (so no file holds the skill's bytes). The content
    layer saw the skill's words in the output, but took them for text the agent already had: the
    workspace after the run held a file saying the same. The baseline was counted as one that
    never saw the skill. Only files that were in the workspace, unchanged, before the agent
    ran now excuse the skill's words."""
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    with _serving_folder(SKILL.parent) as port:
        (behaviors / "download.yaml").write_text(
            json.dumps(
                {
                    "name": "downloads-the-skill",
                    "match": {"prompt_contains": "orders.total_cents is NULL"},
                    "steps": [
                        {
                            "cmd": "{ echo 'These are my own notes for the task, written"
                            " down before I start.';"
                            f" curl -s http://127.0.0.1:{port}/SKILL.md; }} | tee notes.md"
                        },
                        {"final": "done"},
                    ],
                }
            )
        )
        _, result, directory = _evaluate(
            tmp_path,
            "downloaded",
            "--baseline",
            "none",
            agent="claude-code",
            behaviors=behaviors,
            cases=("routing-backfill",),
            attempts=1,
        )
    without = result["variants"][0]
    check = without["contamination"]
    assert check["blocked_cases"] == ["routing-backfill"], check
    assert (without["passed"], without["counted"]) == (0, 0)
    case = json.loads(
        (directory / "variants/without_skill/run/case-results/routing-backfill.json").read_text()
    )
    assert all(
        a["reason"].startswith("contaminated: ") and "reached the agent" in a["reason"]
        for a in case["attempts"]
    ), [a["reason"] for a in case["attempts"]]


@pytest.mark.claude
def test_round_ten_a_baseline_whose_helper_downloads_the_skill_is_contaminated(
    tmp_path: Path,
) -> None:
    """Red team, round 10 (docs/isolation.md): a no-skill attempt spawns a helper (Claude
    Code's Agent tool), which downloads the skill's SKILL.md and reads it, and answers its
    parent in a few words of its own. Every layer but the trace looked at the parent's session
    alone: the skill reached the helper's outputs, not the parent's, and the baseline was
    counted as one that never saw the skill. The sessions the attempt spawned are now checked
    as its own."""
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    with _serving_folder(SKILL.parent) as port:
        documents = [
            {
                "name": "root",
                "match": {"prompt_contains": "orders.total_cents is NULL", "thread": "root"},
                "steps": [
                    {"spawn": {"message": "helper task: find the team's notes"}},
                    {"final": "done"},
                ],
            },
            {
                "name": "helper",
                "match": {"prompt_contains": "helper task", "thread": "child"},
                "steps": [
                    {"cmd": f"curl -s http://127.0.0.1:{port}/SKILL.md"},
                    {"final": "Found them: use the script."},
                ],
            },
        ]
        for document in documents:
            (behaviors / f"{document['name']}.yaml").write_text(json.dumps(document))
        _, result, directory = _evaluate(
            tmp_path,
            "helper",
            "--baseline",
            "none",
            agent="claude-code",
            behaviors=behaviors,
            cases=("routing-backfill",),
            attempts=1,
        )
    without = result["variants"][0]
    check = without["contamination"]
    assert check["blocked_cases"] == ["routing-backfill"], check
    assert (without["passed"], without["counted"]) == (0, 0)
    case = json.loads(
        (directory / "variants/without_skill/run/case-results/routing-backfill.json").read_text()
    )
    assert all("content sub-agent 1: " in a["reason"] for a in case["attempts"]), [
        a["reason"] for a in case["attempts"]
    ]


@pytest.mark.codex
def test_an_outage_under_a_variant_exits_3_not_1(tmp_path: Path) -> None:
    """The agent's model answers HTTP 500 for one case (an outage: `run` and `score` exit 3).
    `evaluate` said `nothing was compared` and exited 1, as if the skill had been measured;
    it is the machine's error, exit 3 with `run`'s line. The look-alike: the same evaluation
    without the outage compares and exits 0."""
    behaviors = tmp_path / "behaviors"
    shutil.copytree(READS_SKILL, behaviors)
    outage = behaviors / "routing-add-column.yaml"
    data = yaml.safe_load(outage.read_text())
    data["steps"] = [{"http_error": 500}]
    outage.write_text(json.dumps(data))
    code, result, _ = _evaluate(
        tmp_path, "aa-outage", "--aa", behaviors=behaviors, cases=CASES[:1], attempts=1
    )
    assert code == 3
    assert result["comparisons"][0]["headline"]["call"] == "no-data"
    code, _, _ = _evaluate(tmp_path, "aa-fine", "--aa", cases=CASES[:1], attempts=1)
    assert code == 0
