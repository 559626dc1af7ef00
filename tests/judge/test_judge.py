"""Judge semantics on hand-built evidence: every check kind, entry polarity, case status."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.contract.models import Case
from evaluator.evidence import SessionEvidence
from evaluator.judge import JudgeContext, judge_case
from evaluator.judge.criteria import compile_sentence
from evaluator.pipeline.stats import case_stats

WS = Path("/ws")
SKILL = ".agents/skills/s"


def _evidence(final: str | None = "Done: see migrations/0001_x.sql") -> SessionEvidence:
    ev = SessionEvidence(session_path="s.jsonl", complete=True, final_answer=final)
    ev.add("command_observed", 3, command=f"cat {SKILL}/SKILL.md", workdir="/ws", exit_code=0)
    ev.add(
        "file_read_observed", 3, path=f"/ws/{SKILL}/SKILL.md", access="read", source="shell-parse"
    )
    ev.add(
        "command_observed", 5, command=f"cat {SKILL}/references/*.md", workdir="/ws", exit_code=0
    )
    ev.add(
        "file_read_observed",
        5,
        path=f"/ws/{SKILL}/references/a.md",
        access="read",
        source="parsed_cmd",
    )
    ev.add(
        "file_read_observed",
        7,
        path=f"/ws/{SKILL}/references/docs.txt",
        access="read",
        source="shell-parse",
    )
    ev.add("command_observed", 9, command="python3 tool.py run", workdir="/ws", exit_code=2)
    ev.add(
        "file_write_observed",
        9,
        path="/ws/out/x.txt",
        access="write",
        source="shell-parse",
        outcome="ok",
    )
    if final is not None:
        ev.add("final_answer", 11, text=final)
    return ev


def _case(
    required: list[dict[str, object]], forbidden: list[dict[str, object]] | None = None
) -> Case:
    return Case.model_validate(
        {
            "case_id": "c",
            "title": "t",
            "input": {"user_prompt": "p"},
            "assert": {"required": required, "forbidden": forbidden or []},
        }
    )


def _judge(case: Case, evidence: SessionEvidence | None = None) -> tuple[str, list[str]]:
    context = JudgeContext(
        evidence=evidence or _evidence(),
        workspace=WS,
        ref_prefix="e.json",
        workspace_available=False,
    )
    judgement = judge_case(case, context)
    return judgement.status, [e.status for e in judgement.entries]


def entry(*checks: dict[str, object]) -> dict[str, object]:
    return {"description": "d", "checks": list(checks)}


@pytest.mark.parametrize(
    "check,expected",
    [
        ({"kind": "file_read", "path": f"{SKILL}/SKILL.md"}, "pass"),
        ({"kind": "file_read", "path": f"{SKILL}/references/*.md"}, "pass"),
        ({"kind": "file_read", "path": "references/a.md"}, "pass"),  # upstream short form
        ({"kind": "file_read", "path": f"{SKILL}/references/b.md"}, "fail"),
        (
            {"kind": "read_before", "first": f"{SKILL}/SKILL.md", "then": f"{SKILL}/references/*"},
            "pass",
        ),
        (
            {
                "kind": "read_before",
                "first": f"{SKILL}/references/docs.txt",
                "then": f"{SKILL}/references/*.md",
            },
            "fail",
        ),
        ({"kind": "read_before", "first": f"{SKILL}/SKILL.md", "then": "nothing/*"}, "pass"),
        ({"kind": "command_ran", "pattern": r"tool\.py"}, "pass"),
        ({"kind": "command_ran", "pattern": r"tool\.py", "exit_code": 0}, "fail"),
        ({"kind": "command_ran", "pattern": r"tool\.py", "exit_code": 2}, "pass"),
        ({"kind": "command_ran", "pattern": "rebuild"}, "fail"),
        ({"kind": "file_written", "path": "out/*.txt"}, "pass"),
        ({"kind": "file_written", "path": f"{SKILL}/SKILL.md"}, "fail"),
        ({"kind": "final_answer_contains", "text": "SEE MIGRATIONS"}, "pass"),
        ({"kind": "final_answer_contains", "text": "SEE", "case_sensitive": True}, "fail"),
        ({"kind": "final_answer_matches", "pattern": r"migrations/\d{4}_\w+\.sql"}, "pass"),
        ({"kind": "final_answer_url"}, "fail"),
        ({"kind": "workspace_file_exists", "path": "x"}, "blocked"),  # workspace gone
    ],
)
def test_check_kinds(check: dict[str, object], expected: str) -> None:
    status, entries = _judge(_case([entry(check)]))
    assert entries == [expected]
    assert status == expected


def test_unknown_exit_code_blocks_instead_of_guessing() -> None:
    evidence = _evidence()
    evidence.add("command_observed", 20, command="bash rebuild.sh", workdir="/ws")
    status, _ = _judge(
        _case([entry({"kind": "command_ran", "pattern": "rebuild", "exit_code": 0})]), evidence
    )
    assert status == "blocked"


def test_forbidden_is_observed_when_any_of_its_checks_is() -> None:
    forbidden = entry(
        {"kind": "file_read", "path": f"{SKILL}/nope.md"},
        {"kind": "file_read", "path": f"{SKILL}/references/a.md"},
    )
    ok = entry({"kind": "file_read", "path": f"{SKILL}/SKILL.md"})
    assert _judge(_case([ok], [forbidden])) == ("fail", ["pass", "fail"])
    clean = entry({"kind": "file_read", "path": f"{SKILL}/nope.md"})
    assert _judge(_case([ok], [clean])) == ("pass", ["pass", "pass"])


def test_required_entry_needs_every_check_and_fail_beats_blocked() -> None:
    mixed = entry(
        {"kind": "file_read", "path": f"{SKILL}/SKILL.md"}, {"kind": "file_read", "path": "zzz"}
    )
    assert _judge(_case([mixed])) == ("fail", ["fail"])
    unclear = {"description": "d", "pass_criteria": ["The tone is friendly."]}
    failing = entry({"kind": "file_read", "path": "zzz"})
    assert _judge(_case([unclear, failing])) == ("fail", ["blocked", "fail"])
    assert _judge(_case([unclear])) == ("blocked", ["blocked"])


def test_missing_final_answer_fails_answer_checks() -> None:
    status, _ = _judge(
        _case([entry({"kind": "final_answer_contains", "text": "x"})]), _evidence(final=None)
    )
    assert status == "fail"


@pytest.mark.parametrize(
    "sentence,kind",
    [
        (
            "The accepted session evidence shows consultation of `.agents/skills/x/SKILL.md`.",
            "file_read",
        ),
        ("`a/docs.txt` was read before any file under `a/references/`.", "read_before"),
        (
            "The accepted session evidence shows a command invoking `scripts/fetch.sh`.",
            "script_ran",
        ),
        ("The accepted session shows a command invoking `pnpm dev`.", "command_ran"),
        ("The session shows the agent ran `scripts/new.py users_email`.", "all_of"),
        ("The final answer includes a local URL.", "final_answer_url"),
        ("The evidence shows consultation of `a.md` or `b.md`.", "any_of"),
    ],
)
def test_criteria_forms_are_recognised(sentence: str, kind: str) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None and compiled.check.kind == kind


@pytest.mark.parametrize(
    "sentence",
    [
        "The final answer includes a local URL and the evaluator opens the reported URL and the page loads.",
        "A file exists in the workspace containing the app id.",
        "The agent is polite.",
        "The final answer recommends token auth over Basic Auth.",
    ],
)
def test_unclear_criteria_are_left_alone(sentence: str) -> None:
    assert compile_sentence(sentence) is None


def test_stats_exclude_blocked_and_flag_flaky() -> None:
    stats = case_stats(["pass", "fail", "blocked", "pass"])
    assert (stats.judged, stats.passed, stats.blocked) == (3, 2, 1)
    assert stats.pass_rate == pytest.approx(2 / 3)
    assert stats.pass_at_k == 1.0 and stats.pass_pow_k == 0.0 and stats.flaky
    none = case_stats(["blocked"])
    assert none.pass_rate is None and not none.flaky


@pytest.mark.parametrize(
    "command,expected",
    [
        ("python3 s/new_migration.py x", "pass"),
        ("cd s && ./new_migration.py x", "pass"),
        ("bash -c 'timeout 5 python3 s/new_migration.py x'", "pass"),
        ("python3 s/new_migration.py x || echo failed", "pass"),
        # printed, searched or read: the script never ran
        ("echo 'next: python3 s/new_migration.py x'", "fail"),
        ("grep -n new_migration.py SKILL.md", "fail"),
        ("cat s/new_migration.py", "fail"),
        # may not have run: never a pass
        ("true || python3 s/new_migration.py x", "blocked"),
        ("if [ -f x ]; then python3 s/new_migration.py x; fi", "blocked"),
        # red team, round 2: places that may run nothing
        ("for x in; do python3 s/new_migration.py x; done", "blocked"),
        ("for x in $(true); do python3 s/new_migration.py x; done", "blocked"),
        ("for ((i=0; i<0; i++)); do python3 s/new_migration.py x; done", "blocked"),
        ("while false; do python3 s/new_migration.py x; done", "blocked"),
        ("until true; do python3 s/new_migration.py x; done", "blocked"),
        (": ${UNSET:+$(python3 s/new_migration.py x)}", "blocked"),
        ("exit 0; python3 s/new_migration.py x", "blocked"),
        ("bash -c 'exit; python3 s/new_migration.py x'", "blocked"),
        ("trap 'python3 s/new_migration.py x' USR1", "blocked"),
        ("bash -nc 'python3 s/new_migration.py x'", "blocked"),
        ("bash -n s/new_migration.py", "fail"),
        ("python3 -c pass s/new_migration.py", "fail"),
        ("find . -name nothing-here -exec python3 s/new_migration.py x \\;", "blocked"),
        (
            'python3 -c \'import subprocess\nif 0:\n subprocess.run(["python3", "s/new_migration.py"])\'',
            "blocked",
        ),
        # look-alikes that did run
        (
            'python3 -c \'import subprocess; subprocess.run(["python3", "s/new_migration.py"])\'',
            "pass",
        ),
        ("timeout 60 nice python3 s/new_migration.py x", "pass"),
        ("for m in a b; do python3 s/new_migration.py $m; done", "pass"),
        ("while ! python3 s/new_migration.py x; do sleep 1; done", "pass"),
        ("trap 'python3 s/new_migration.py x' EXIT", "pass"),
        ('x=$(python3 s/new_migration.py x); echo "$x"', "pass"),
        # red team, round 3: the program's name given another meaning first
        ("python3() { echo ok; }; python3 s/new_migration.py x", "blocked"),
        ("function python3 { echo ok; }; python3 s/new_migration.py x", "blocked"),
        ("hash -p /bin/echo python3; python3 s/new_migration.py x", "blocked"),
        ("shopt -s expand_aliases\nalias python3=echo\npython3 s/new_migration.py x", "blocked"),
        ("f() { echo ok; }; hash -r; python3 s/new_migration.py x", "pass"),
        # red team, round 17: any name given another meaning by text the analysis does not
        # read as definitions (a file or string run, a trap, bash's tables of names)
        ("BASH_CMDS[python3]=/bin/true; python3 s/new_migration.py x", "blocked"),
        ("BASH_CMDS=([python3]=/bin/true); python3 s/new_migration.py x", "blocked"),
        ("declare -A BASH_CMDS=([python3]=/bin/true); python3 s/new_migration.py x", "blocked"),
        ("read -r 'BASH_CMDS[python3]' <<< /bin/true; python3 s/new_migration.py x", "blocked"),
        ("printf -v 'BASH_CMDS[python3]' /bin/true; python3 s/new_migration.py x", "blocked"),
        ("mapfile -t BASH_ALIASES < a; python3 s/new_migration.py x", "blocked"),
        (
            "shopt -s expand_aliases\nBASH_ALIASES[python3]=true\npython3 s/new_migration.py x",
            "blocked",
        ),
        ("declare -n r=BASH_CMDS; r[python3]=/bin/true; python3 s/new_migration.py x", "blocked"),
        ("trap 'python3() { :; }' DEBUG; python3 s/new_migration.py x", "blocked"),
        ("trap 'python3() { :; }' ERR; false; python3 s/new_migration.py x", "blocked"),
        ("trap -- 'f() { :; }' USR1 EXIT; python3 s/new_migration.py x", "blocked"),
        (". ./env.sh; python3 s/new_migration.py x", "blocked"),
        ("source /dev/stdin <<< 'python3() { :; }'; python3 s/new_migration.py x", "blocked"),
        ('eval "python3() { :; }"; python3 s/new_migration.py x', "blocked"),
        ("enable -f ./b.so python3; python3 s/new_migration.py x", "blocked"),
        ("command_not_found_handle() { :; }; python3 s/new_migration.py x", "blocked"),
        ("f() { :; }; export -f f; bash -c 'f; python3 s/new_migration.py x'", "pass"),
        ("python3() { :; }; export -f python3; bash -c 'python3 s/new_migration.py x'", "blocked"),
        # look-alikes: text that gives no name another meaning
        ("trap 'rm -f t' EXIT; python3 s/new_migration.py x", "pass"),
        ("trap - DEBUG; trap -p; python3 s/new_migration.py x", "pass"),
        ("printf '%s' \"$BASH_CMDS\"; python3 s/new_migration.py x", "pass"),
        ("read -r line < f; printf -v out '%s' x; python3 s/new_migration.py x", "pass"),
        ("echo source eval; python3 s/new_migration.py x", "pass"),
        ("python3 s/new_migration.py x; . ./env.sh", "pass"),
        # red team, round 18: a file named by `BASH_ENV`, which a nested bash runs first
        ("BASH_ENV=./e.sh bash -c 'python3 s/new_migration.py x'", "blocked"),
        ("export BASH_ENV=./e.sh; bash -c 'python3 s/new_migration.py x'", "blocked"),
        ("declare -x BASH_ENV=./e.sh; bash -c 'python3 s/new_migration.py x'", "blocked"),
        ("env BASH_ENV=./e.sh bash -c 'python3 s/new_migration.py x'", "blocked"),
        ("set -a; BASH_ENV=./e.sh; bash -c 'python3 s/new_migration.py x'", "blocked"),
        # look-alikes: `ENV` (read by interactive shells only), another variable, its value read
        ("ENV=test python3 s/new_migration.py x", "pass"),
        ("ENV=./e.sh bash -c 'python3 s/new_migration.py x'", "pass"),
        ("GREETING=hi bash -c 'python3 s/new_migration.py x'", "pass"),
        ('echo "$BASH_ENV"; python3 s/new_migration.py x', "pass"),
    ],
)
def test_command_ran_needs_the_matched_program_to_run(command: str, expected: str) -> None:
    """Red team (docs/isolation.md): a command printed or short-circuited passed command_ran."""
    evidence = SessionEvidence(session_path="s.jsonl", complete=True, final_answer="done")
    evidence.add("command_observed", 3, command=command, workdir="/ws", exit_code=0)
    evidence.add("final_answer", 5, text="done")
    check = {"kind": "command_ran", "pattern": r"new_migration\.py", "exit_code": 0}
    status, _ = _judge(_case([entry(check)]), evidence)
    assert status == expected


@pytest.mark.parametrize(
    "check",
    [
        {"kind": "command_ran", "pattern": r"new_migration\.py", "exit_code": 0},
        {"kind": "script_ran", "path": "*/new_migration.py", "exit_code": 0},
    ],
)
@pytest.mark.parametrize(
    "command,executed,own,expected",
    [
        # red team, round 3: a file the session wrote, named like the target's script or
        # written over it, is the agent's own program
        ("python3 t/scripts/new_migration.py x", "/ws/t/scripts/new_migration.py", True, "fail"),
        ("python3 s/new_migration.py x", "/ws/s/new_migration.py", True, "fail"),
        ("cd t && ./new_migration.py x", "/ws/t/new_migration.py", True, "fail"),
        # a script named by a bare word is a file of the directory, not a program on PATH
        ("cd t && python3 new_migration.py x", "/ws/t/new_migration.py", True, "fail"),
        # look-alikes: the target's own file, and the agent's program named by a bare word
        ("python3 s/new_migration.py x", "/ws/s/new_migration.py", False, "pass"),
        ("cd s && ./new_migration.py x", "/ws/s/new_migration.py", False, "pass"),
        ("cd s && python3 new_migration.py x", "/ws/s/new_migration.py", False, "pass"),
    ],
)
def test_running_the_agents_own_text_is_no_run_of_the_script(
    check: dict[str, object], command: str, executed: str, own: bool, expected: str
) -> None:
    evidence = SessionEvidence(session_path="s.jsonl", complete=True, final_answer="done")
    evidence.add("command_observed", 3, command=command, workdir="/ws", exit_code=0, call_id="c1")
    evidence.add(
        "file_read_observed",
        3,
        path=executed,
        access="exec",
        call_id="c1",
        source="shell-parse",
        own_text=True if own else None,
    )
    evidence.add("final_answer", 5, text="done")
    status, _ = _judge(_case([entry(check)]), evidence)
    assert status == expected


@pytest.mark.parametrize(
    "command,exit_code,expected",
    [
        # after `&&` or `set -e`, it ran only if what came before succeeded: exit code 0 of the
        # call shows that when the chain is its last statement
        ("cd s && ./new_migration.py x", 0, "pass"),
        ("cd s && ./new_migration.py x", 1, "blocked"),
        ("false && python3 s/new_migration.py x", 1, "blocked"),
        ("ls nowhere && python3 s/new_migration.py x; true", 0, "blocked"),
        ("ls nowhere && python3 s/new_migration.py x || true", 0, "blocked"),
        ("ls nowhere && python3 s/new_migration.py x &", 0, "blocked"),
        ("false <<'EOF' && python3 s/new_migration.py x\nhi\nEOF", 1, "blocked"),
        ("set -e; false; python3 s/new_migration.py x", 1, "blocked"),
        ("set -euo pipefail; python3 s/new_migration.py x", 0, "pass"),
        ("bash -c 'cd s && python3 new_migration.py x'", 0, "pass"),
        ("cd s && python3 new_migration.py x 2>&1 | tail -3", 0, "pass"),
    ],
)
def test_command_ran_after_and_needs_the_exit_code(
    command: str, exit_code: int, expected: str
) -> None:
    evidence = SessionEvidence(session_path="s.jsonl", complete=True, final_answer="done")
    evidence.add("command_observed", 3, command=command, workdir="/ws", exit_code=exit_code)
    evidence.add("final_answer", 5, text="done")
    check = {"kind": "command_ran", "pattern": r"new_migration\.py"}
    status, _ = _judge(_case([entry(check)]), evidence)
    assert status == expected


def test_round_ten_an_act_of_a_spawned_session_is_the_attempts() -> None:
    """Red team, round 10: a helper's run is the attempt's. "never runs deploy.py" fails when a
    helper ran it, "ran deploy.py" passes when only a helper did (cited in the helper's kept
    session), and a helper's run that may not have happened blocks the forbidden entry; a
    helper that ran something else changes nothing."""

    def helper(command: str) -> SessionEvidence:
        ev = SessionEvidence(session_path="h.jsonl", complete=True, final_answer="ok")
        ev.add("command_observed", 2, command=command, workdir="/ws", exit_code=0)
        return ev

    ran = {"kind": "command_ran", "pattern": "python3 deploy.py"}
    case = _case([entry(ran)], [entry(ran)])

    def judged(*helpers: SessionEvidence) -> tuple[list[str], list[str]]:
        context = JudgeContext(
            evidence=_evidence(), workspace=WS, ref_prefix="a/s.json", workspace_available=False
        )
        context.spawned = tuple(
            context.helper(h, f"a/subagent-sessions/h{n}.jsonl", None)
            for n, h in enumerate(helpers)
        )
        judgement = judge_case(case, context)
        return [e.status for e in judgement.entries], [
            r for e in judgement.entries for r in e.evidence
        ]

    assert judged()[0] == ["fail", "pass"]
    assert judged(helper("ls -a"))[0] == ["fail", "pass"]
    statuses, refs = judged(helper("ls"), helper("python3 deploy.py"))
    assert statuses == ["pass", "fail"]
    assert "a/subagent-sessions/h1.jsonl#msg-1" in refs
    # `true || ...`: the helper's run may not have happened: the forbidden entry cannot pass
    assert judged(helper("true || python3 deploy.py"))[0][1] == "blocked"


def test_round_ten_an_order_beside_a_helpers_second_act_is_undecided() -> None:
    """Red team, round 10: "reads SKILL.md before deploying" holds on the parent's session
    (no deploy there), but a helper deployed, when against the read is not recorded: blocked,
    the agent's gap. A helper that did something else leaves the order holding."""
    order = {"kind": "ran_before", "first": "cat", "then": "python3 deploy.py"}
    case = _case([entry(order)])

    def judged(command: str) -> tuple[str, str | None]:
        helper = SessionEvidence(session_path="h.jsonl", complete=True, final_answer="ok")
        helper.add("command_observed", 2, command=command, workdir="/ws", exit_code=0)
        context = JudgeContext(
            evidence=_evidence(), workspace=WS, ref_prefix="a/s.json", workspace_available=False
        )
        context.spawned = (context.helper(helper, "a/subagent-sessions/h.jsonl", None),)
        (result,) = judge_case(case, context).entries
        return result.status, result.blocked_by

    assert judged("ls") == ("pass", None)
    assert judged("python3 deploy.py") == ("blocked", "agent")
