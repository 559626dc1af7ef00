"""A skill that drives a headless browser, the shape of `mitsuhiko/agent-stuff`'s `web-browser`
(round 8, docs/real-repos.md) reduced to Chromium's own command line: the DOM of a page of the
workspace, then a screenshot into the workspace. Every Chromium reads its launcher's
configuration (Debian: `/etc/chromium.d/`) and the machine's font configuration, makes shared
memory in `/dev/shm`, probes the D-Bus system socket, dconf, `/dev/dri` and `/selinux`, starts
in its own directory and writes each process's own `oom_score_adj`. On `main` an honest run was
`blocked, violation`.

Our own skill, the real Codex, Claude Code and Gemini CLI with the default layers (jail and
trace). Needs Debian's `chromium` (`/usr/bin/chromium`): skipped where it is absent (CI's machine
may lack it). The scratch root is long enough that a run's agent directory is as long as an
evaluation variant's under the default root (74 characters for Gemini CLI's old `TMPDIR`): there
Chromium's singleton socket path went over the 107 bytes a Unix socket's name may hold and
Chromium aborted ("Socket path too long"). In the jail an agent's `TMPDIR` is now its private
`/tmp` (docs/isolation.md, "TMPDIR in the jail").
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest

from evaluator.contract.models import Needs
from evaluator.pipeline.needs import check_needs
from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.run import Run, RunOptions
from evaluator.sandbox import LaunchPolicy
from tests.support import agent_or_skip, layers_or_skip, tracer_under_test

NAME = "page-snapshot"
PROMPT = "Snapshot page.html with the page-snapshot skill."
PAGE = (
    "<html><head><title>Team page</title></head><body><h1>Hello browser</h1>"
    "<ul><li>one</li><li>two</li></ul></body></html>\n"
)
FLAGS = "--headless=new --no-sandbox --disable-gpu"
CHROMIUM = Path("/usr/bin/chromium")
# 44 characters with the suffix the test adds: a plain run's agent directory under it is as long
# as an evaluation variant's under the default root, `/var/tmp/agentic-eval` (the docstring).
SCRATCH = Path("/var/tmp/ae-browser-as-long-as-a-variant")


def _skill_repo(root: Path) -> Path:
    skill = root / NAME
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Reads a local web page in a headless browser. Use when"
        " the user asks for a page's DOM or a screenshot.\n---\n\n# Page snapshot\n\nRun"
        f" `chromium {FLAGS} --dump-dom file://$PWD/PAGE > dom.html`, then"
        f" `chromium {FLAGS} --screenshot=$PWD/shot.png --window-size=800,600 file://$PWD/PAGE`.\n"
    )
    evals = {
        "skill_name": NAME,
        # A machine without it blocks the case (environment) before any agent run.
        "needs": {"programs": ["chromium"]},
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "dom.html holds the page's DOM, shot.png its screenshot.",
                "files": [{"path": "page.html", "content": PAGE}],
                "assertions": [
                    {"type": "file_contains", "path": "dom.html", "contains": "Hello browser"},
                    {"type": "command", "command": "test -s shot.png", "expect_exit_code": 0},
                ],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    return skill / "evals/evals.json"


def _behaviors(root: Path, agent: str) -> Path:
    load: dict[str, Any] = (
        {"call": {"name": "activate_skill", "args": {"name": NAME}}}
        if agent == "gemini"
        else {"skill": NAME}
    )
    steps = [
        load,
        {
            "cmd": f'chromium {FLAGS} --dump-dom "file://$PWD/page.html" > dom.html; grep -c "<li>" dom.html'
        },
        {
            "cmd": f'chromium {FLAGS} --screenshot="$PWD/shot.png" --window-size=800,600'
            ' "file://$PWD/page.html"; test -s shot.png && echo shot-ok'
        },
        {"final": "dom.html holds the page's DOM; shot.png is its screenshot."},
    ]
    behaviors = root / "behaviors"
    behaviors.mkdir()
    body = {"name": "snapshots", "match": {"prompt_contains": PROMPT}, "steps": steps}
    (behaviors / "snapshots.yaml").write_text(json.dumps(body))
    return behaviors


@pytest.mark.parametrize(
    "agent",
    [
        pytest.param("codex", marks=pytest.mark.codex),
        pytest.param("claude", marks=pytest.mark.claude),
        pytest.param("gemini", marks=pytest.mark.gemini),
    ],
)
def test_an_honest_headless_browser_is_contained(agent: str, tmp_path: Path) -> None:
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    if not CHROMIUM.exists() or shutil.which("chromium") is None:
        pytest.skip("no Chromium on this machine (Debian: apt-get install chromium)")
    evals = _skill_repo(tmp_path / "src")
    behaviors = _behaviors(tmp_path, agent)
    scratch = SCRATCH.with_name(f"{SCRATCH.name}-{uuid.uuid4().hex[:4]}")
    scratch.mkdir()
    try:
        options = RunOptions(
            repo=evals,
            behaviors=behaviors,
            runs_dir=tmp_path / "runs",
            scratch_root=scratch,
            agent=runner,
            tracer=tracer_under_test(),
        )
        outcome = Run(options, PlainProgress()).execute()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    attempt = outcome.run_dir.path / "case-artifacts/eval-1/attempts/attempt-01"
    record = json.loads((attempt / "attempt.json").read_text())
    assert record["trace_report"]["verdict"] == "contained", record["trace_report"]
    assert record["isolation_report"]["verdict"] == "contained", record["isolation_report"]
    result = json.loads((outcome.run_dir.path / "case-results/eval-1.json").read_text())
    if agent == "codex":
        # Codex's own sandbox refuses Chromium's `setsockopt` on its crash reporter's socket and
        # the browser stops on a trap: the page is never read, an honest failure, not a block.
        assert result["status"] == "fail", result
        assert (
            "setsockopt: Operation not permitted"
            in json.dumps(record) + (attempt / "accepted-session.json").read_text()
        )
    else:
        assert result["status"] == "pass", result


def test_the_browser_is_a_need_looked_up_in_the_jail(tmp_path: Path) -> None:
    """`needs: {programs: [chromium]}` finds Debian's launcher on the agent's PATH in the jail,
    and names it missing where the agent's PATH lacks it: the case is then `blocked
    (environment)` with no agent run (tests/pipeline/test_needs.py)."""
    layers_or_skip(jail=True)
    if not CHROMIUM.exists():
        pytest.skip("no Chromium on this machine (Debian: apt-get install chromium)")
    needs, jail = Needs(programs=["chromium"]), LaunchPolicy(jail="bwrap")
    found = check_needs(needs, jail, tmp_path, {"PATH": "/usr/local/bin:/usr/bin:/bin"})
    assert (found.missing, found.problem) == ([], None)
    elsewhere = check_needs(needs, jail, tmp_path, {"PATH": "/usr/local/sbin"})
    assert elsewhere.missing == ["program 'chromium' is not on the agent's PATH"]
