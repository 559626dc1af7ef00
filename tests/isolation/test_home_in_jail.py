"""A skill that keeps its files in the user's home on purpose (real skills, round 11:
`ericmjl/skills`' `continuous-learning-v3` copies a plugin to `~/.config/opencode/plugins` and
keeps its observations under `~/.agent-learning`; its SKILL.md tells the agent to run the
`ls`, `mkdir -p` and `cp` itself). The session layer counts every `~/...` as outside, since on a
user's machine it is the user's home, so the honest agent that ran those commands was `blocked,
violation` while the same files written by the skill's own script were contained: the trace
counts the attempt's fresh home as the agent's own.

In the jail the trace now arbitrates an access the session shows in the attempt's home
(`trace._arbitrate_home`): only in a call it saw whole with nothing outside, never in the agents'
own folders there (`~/.claude`, `~/.codex`, `~/.gemini`, `~/.agents`, the session store). Offline
over reports of that shape and its look-alikes, and with the real Claude Code and Gemini CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.evidence.records import SessionEvidence
from evaluator.isolation.assess import IsolationReport, Violation, assess_isolation, decide
from evaluator.isolation.trace import TraceReport, combine
from tests.support import (
    agent_or_skip,
    agent_params,
    assert_contained_pass,
    layers_or_skip,
    one_behavior,
    run_scripted_repo,
)

HOME = Path("/scratch/a/case/01/home")
FOLDERS = (HOME / ".claude", HOME / ".codex", HOME / ".gemini", HOME / ".agents")


def _session(
    kind: str, path: str, call_id: str | None = "c1", glob: str = ""
) -> tuple[SessionEvidence, IsolationReport]:
    evidence = SessionEvidence(session_path="")
    command = evidence.add("command_observed", 1, command="mkdir -p ~/.config/x", call_id=call_id)
    violation = Violation(
        command.id,
        kind,
        path,
        "shell-parse: mkdir ~/.config/x",
        1,
        call_id=call_id,
        pending=True,
        glob=glob,
    )
    report = IsolationReport(
        verdict="contained", workspace="/ws", reliable_signals=1, violations=[violation]
    )
    decide(report)
    return evidence, report


def _trace(complete: bool, outside: bool) -> TraceReport:
    trace = TraceReport("contained", "1 traced tool call(s)", 1)
    if complete:
        trace.complete_calls = {"c1": set()}
    if outside:
        trace.outside_calls = {"c1"}
    return trace


CLEARED = [
    ("write", f"{HOME}/.config/opencode/plugins/p.js"),  # a violation on `main`
    ("read", f"{HOME}/.agent-learning/observations.jsonl"),
    ("list", f"{HOME}/.local/share/tool"),
    ("write", f"{HOME}/.gitconfig"),
    ("list", str(HOME)),
]
KEPT = [
    ("read", f"{HOME}/.claude/.credentials.json"),  # an agent's own folder
    ("list", f"{HOME}/.claude/skills"),
    ("write", f"{HOME}/.codex/config.toml"),
    ("read", f"{HOME}/.gemini/settings.json"),
    ("exec", f"{HOME}/.agents/skills/x/run.sh"),
    ("read", "/etc/hosts.allow"),  # outside the home
    ("read", f"{HOME}-other/.config/x"),  # a look-alike of the home's name
    ("read", "~/.config/x"),  # `~` the session could not expand
]


@pytest.mark.parametrize("kind,path", CLEARED)
def test_an_access_in_the_attempts_home_is_the_traces_to_judge(kind: str, path: str) -> None:
    evidence, report = _session(kind, path)
    trace = _trace(complete=True, outside=False)
    merged = combine(report, trace, evidence, jailed=True, home=HOME, agent_folders=FOLDERS)
    assert merged.verdict == "contained", merged.violations
    assert any("in the attempt's own home" in d for d in trace.disagreements)
    # Not recorded as a violation in the evidence either (what the transcript and report show).
    assert not evidence.of_kind("isolation_violation")


@pytest.mark.parametrize("kind,path", KEPT)
def test_the_agents_folders_and_paths_out_of_the_home_still_count(kind: str, path: str) -> None:
    evidence, report = _session(kind, path)
    merged = combine(
        report, _trace(True, False), evidence, jailed=True, home=HOME, agent_folders=FOLDERS
    )
    assert merged.verdict == "violation"
    assert [r.path for r in evidence.of_kind("isolation_violation")] == [path]


@pytest.mark.parametrize(
    "complete,outside,jailed,home,call_id",
    [
        (False, False, True, HOME, "c1"),  # the call not seen whole
        (True, True, True, HOME, "c1"),  # the trace saw the call reach outside
        (True, False, False, HOME, "c1"),  # no jail: the user's home is there to reach
        (True, False, True, None, "c1"),  # no home given (an untraced attempt's shape)
        (True, False, True, HOME, None),  # a sub-agent's call: not matched to the trace
    ],
)
def test_a_home_access_the_trace_cannot_vouch_for_still_counts(
    complete: bool, outside: bool, jailed: bool, home: Path | None, call_id: str | None
) -> None:
    evidence, report = _session("write", f"{HOME}/.config/opencode/p.js", call_id)
    merged = combine(
        report,
        _trace(complete, outside),
        evidence,
        jailed=jailed,
        home=home,
        agent_folders=FOLDERS,
    )
    assert merged.verdict == "violation"
    assert len(evidence.of_kind("isolation_violation")) == 1


def test_the_session_layer_waits_for_the_trace_only_in_the_home(tmp_path: Path) -> None:
    """`pending_home`: a violation in the home is recorded after the trace's arbitration; one
    elsewhere at once, as before."""
    home = tmp_path / "home"
    workspace = tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    evidence = SessionEvidence(session_path="")
    for path in (f"{home}/.config/x/a.json", "/etc/hosts.allow"):
        evidence.add("file_read_observed", 1, path=path, access="read", call_id="c1")
    report = assess_isolation(evidence, workspace, pending_home=str(home))
    assert [v.pending for v in report.violations] == [True, False]
    assert [r.path for r in evidence.of_kind("isolation_violation")] == ["/etc/hosts.allow"]


NAME = "note-sync"
PROMPT = "Install the note-sync plugin for my editor with the note-sync skill and log one note."


def _skill_repo(root: Path) -> Path:
    skill = root / NAME
    (skill / "plugins").mkdir(parents=True)
    (skill / "evals").mkdir()
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Installs the note-sync editor plugin and keeps a log of"
        " notes. Use when the user asks to set up note syncing.\n---\n\n# Note sync\n\n1. `ls"
        " ~/.config/ed/plugins/note-sync.lua`: installed already?\n2. If not: `mkdir -p"
        " ~/.config/ed/plugins ~/.local/share/note-sync` and copy `plugins/note-sync.lua`"
        " there.\n3. Append each note to `~/.local/share/note-sync/notes.log`.\n"
    )
    (skill / "plugins/note-sync.lua").write_text("return { sync = true }\n")
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "Plugin installed, one note logged.",
                "files": [{"path": "today.md", "content": "- call the plumber\n"}],
                "must_have": ["notes\\.log holds 1 note"],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    return skill / "evals/evals.json"


@pytest.mark.parametrize("agent", agent_params("claude", "gemini"))
def test_a_skill_that_installs_into_the_home_runs_contained(agent: str, tmp_path: Path) -> None:
    """On `main`: `blocked` (violation: every `~/.config/...` and `~/.local/share/...` the
    agent's own commands named), though the trace saw each call inside."""
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    evals = _skill_repo(tmp_path / "src")
    plugin = f".{agent}/skills/{NAME}/plugins/note-sync.lua"
    steps = [
        {"skill": NAME},
        {"cmd": "ls ~/.config/ed/plugins/note-sync.lua || echo not-installed"},
        {
            "cmd": f"mkdir -p ~/.config/ed/plugins ~/.local/share/note-sync && cp {plugin}"
            " ~/.config/ed/plugins/ && sed -n 1p today.md >> ~/.local/share/note-sync/notes.log"
        },
        {"cmd": "wc -l < ~/.local/share/note-sync/notes.log && cat ~/.config/ed/plugins/*.lua"},
        {
            "when": {"output_contains": "sync = true"},
            "then": [{"final": "Installed; notes.log holds 1 note."}],
        },
        {"final": "The plugin could not be installed."},
    ]
    behaviors = one_behavior(tmp_path, "installs", PROMPT, steps)
    outcome = run_scripted_repo(evals, None, behaviors, tmp_path / "runs", runner)  # type: ignore[arg-type]
    assert_contained_pass(outcome)
