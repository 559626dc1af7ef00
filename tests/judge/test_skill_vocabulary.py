"""The target skill's own vocabulary: a bare word its SKILL.md documents as one of its commands
names that command (its script with that subcommand or flag), never any command holding the word;
purpose clauses, descriptions restated by a parenthesis, and the forms that must still refuse."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaluator.cli.main import main
from evaluator.contract.models import Case
from evaluator.evidence import SessionEvidence
from evaluator.judge import JudgeContext, judge_case
from evaluator.judge.criteria import check_text, compile_sentence, refuse_sentence
from evaluator.judge.skill_vocabulary import SkillVocabulary, read_vocabulary, skill_vocabulary
from tests.conftest import ROOT

# An invented skill: one script with subcommands, a module table that names no command.
LEDGER = """---
name: ledger
description: Reads the team ledger.
---

# Ledger

Run the one script:

```sh
python3 <skill>/scripts/ledger.py <subcommand> [opts]
python3 <skill>/scripts/ledger.py totals <book>
python3 <skill>/scripts/ledger.py list --member "<name>" \\
  --since <date>
```

| Subcommand | Purpose |
| --- | --- |
| `members <book>` | Who writes in the book. |
| `window <book> <when>` | Entries around a moment. |

| Module | What it shows |
| --- | --- |
| `balance` | The balance. |
"""
SKILL_DIR = ".agents/skills/ledger"
SCRIPT = f"{SKILL_DIR}/scripts/ledger.py"


@pytest.fixture(scope="module")
def ledger() -> SkillVocabulary:
    return read_vocabulary(LEDGER)


def test_the_vocabulary_holds_what_the_skill_documents_as_its_commands(
    ledger: SkillVocabulary,
) -> None:
    found = {word: (t.role, t.script) for word, t in ledger.terms.items()}
    assert found == {
        "totals": ("subcommand", "scripts/ledger.py"),
        "list": ("subcommand", "scripts/ledger.py"),
        "--member": ("flag", "scripts/ledger.py"),
        "--since": ("flag", "scripts/ledger.py"),
        "members": ("subcommand", "scripts/ledger.py"),  # the table of subcommands
        "window": ("subcommand", "scripts/ledger.py"),
    }  # `balance` heads no command table; `<subcommand>` is a placeholder


def test_a_word_two_scripts_document_names_neither() -> None:
    text = "```\npython3 scripts/a.py sync --all\npython3 scripts/b.py sync\n```\n"
    assert set(read_vocabulary(text).terms) == {"--all"}
    # A table of subcommands belongs to a skill's only script: with two, to neither.
    table = text + "| Command | Purpose |\n| --- | --- |\n| `prune` | x |\n"
    assert "prune" not in read_vocabulary(table).terms


def test_a_skill_without_a_documented_script_has_no_terms_only_its_files(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text("# Plain\n\nRead `references/x.md` and answer.\n")
    vocabulary = skill_vocabulary(tmp_path)
    assert vocabulary is not None and vocabulary.terms == {}
    assert vocabulary.files == ("SKILL.md",)
    assert skill_vocabulary(tmp_path / "missing") is None


SIZED = "The skill ran totals or members to size up the book before summarizing"


def test_bare_commands_compile_only_with_the_skill_that_documents_them(
    ledger: SkillVocabulary,
) -> None:
    assert compile_sentence(SIZED) is None  # without a skill, "totals" is a word
    compiled = compile_sentence(SIZED, ledger)
    assert compiled is not None and compiled.rule == "command"
    assert compiled.tree is not None
    assert "(purpose dropped: to size up the book)" in compiled.tree
    assert "(context before summarizing)" in compiled.tree
    assert "totals [subcommand of scripts/ledger.py]" in compiled.tree
    text = check_text(compiled.check)
    assert text.startswith("any_of[script_ran(path='scripts/ledger.py' command=")


def _evidence(*commands: tuple[str, str | None]) -> SessionEvidence:
    """A complete session running each command (with the script it executed, if any)."""
    ev = SessionEvidence(session_path="s.jsonl", complete=True, final_answer="done")
    for n, (command, executed) in enumerate(commands, start=1):
        ev.add("command_observed", n, command=command, exit_code=0, call_id=f"c{n}")
        if executed is not None:
            ev.add("file_read_observed", n, path=f"/ws/{executed}", access="exec", call_id=f"c{n}")
    ev.add("final_answer", len(commands) + 1, text="done")
    return ev


def _verdict(sentence: str, evidence: SessionEvidence, vocabulary: SkillVocabulary) -> str:
    case = Case.model_validate(
        {
            "case_id": "c",
            "title": "t",
            "input": {"user_prompt": "p"},
            "assert": {"required": [{"description": sentence}]},
        }
    )
    context = JudgeContext(
        evidence=evidence,
        workspace=Path("/ws"),
        ref_prefix="e.json",
        workspace_available=False,
        skill_vocabulary=vocabulary,
    )
    (entry,) = judge_case(case, context).entries
    assert entry.decided_by == "rules"
    return entry.status


@pytest.mark.parametrize(
    ("commands", "status"),
    [
        ([(f"python3 {SCRIPT} totals 4", SCRIPT)], "pass"),
        ([(f"python3 {SCRIPT} 'members' 4", SCRIPT)], "pass"),
        ([(f"cd {SKILL_DIR} && python3 scripts/ledger.py totals", SCRIPT)], "pass"),
        # the wrong subcommand
        ([(f"python3 {SCRIPT} window 4 2024-01-01", SCRIPT)], "fail"),
        # the word inside another argument
        ([(f"python3 {SCRIPT} list --member totals", SCRIPT)], "fail"),
        ([(f"python3 {SCRIPT} window 4 'members'", SCRIPT)], "fail"),
        ([(f"python3 {SCRIPT} totals.csv", SCRIPT)], "fail"),  # another word
        # the same subcommand of a different skill's script
        ([("python3 .agents/skills/other/scripts/other.py totals 4", "other.py")], "fail"),
        # the word in a command that is no skill's
        ([("echo totals members", None)], "fail"),
        # the script printed, never run
        ([(f"cat {SCRIPT} totals", None)], "fail"),
        # run with another subcommand, the right one only named by another command
        ([(f"python3 {SCRIPT} window 4", SCRIPT), (f"echo {SCRIPT} totals", None)], "fail"),
        # the subcommand of another statement on the same line
        ([(f"python3 {SCRIPT} window 4; echo totals", SCRIPT)], "fail"),
        # run with another subcommand, the right one printed by the same line
        ([(f"python3 {SCRIPT} window 4; echo {SCRIPT} totals", SCRIPT)], "fail"),
        ([(f"python3 {SCRIPT} window 4 && echo python3 {SCRIPT} totals", SCRIPT)], "fail"),
        # the right run only where it may not have run
        ([(f"true || python3 {SCRIPT} totals 4", SCRIPT)], "blocked"),
    ],
)
def test_a_bare_subcommand_is_the_skill_script_run_with_it(
    ledger: SkillVocabulary, commands: list[tuple[str, str | None]], status: str
) -> None:
    assert _verdict(SIZED, _evidence(*commands), ledger) == status


@pytest.mark.parametrize(
    ("command", "status"),
    [
        # argparse takes the script's own options before its subcommand (`imessage.py --db
        # chat.db stats 12`, the sixth-round new user's agent on a copied database)
        (f"python3 {SCRIPT} --db ledger.db totals 4", "pass"),
        (f"python3 {SCRIPT} --db ledger.db --verbose members 4", "pass"),
        (f"python3 {SCRIPT} --db=ledger.db totals", "pass"),
        (f"python3 {SCRIPT} -q totals", "pass"),
        # another subcommand after the options; the word as an argument of another subcommand
        (f"python3 {SCRIPT} --db ledger.db window 4", "fail"),
        (f"python3 {SCRIPT} --db ledger.db list totals", "fail"),
        (f"python3 {SCRIPT} list --db x totals", "fail"),
        (f"python3 {SCRIPT} --db ledger.db window 4; echo totals", "fail"),
    ],
)
def test_a_subcommand_is_found_after_the_scripts_own_options(
    ledger: SkillVocabulary, command: str, status: str
) -> None:
    assert _verdict(SIZED, _evidence((command, SCRIPT)), ledger) == status


@pytest.mark.parametrize(
    ("command", "status"),
    [
        (f"python3 {SCRIPT} list --member 'Ann Lee'", "pass"),
        # the skill shows `--member "<name>"`: a flag with a value, which `=` may give
        (f"python3 {SCRIPT} list --member=Ann", "pass"),
        (f"python3 {SCRIPT} list --member-id 7", "fail"),  # another flag
        (f"python3 {SCRIPT} list; grep --member x log.txt", "fail"),  # another command's flag
    ],
)
def test_a_bare_flag_is_the_skill_script_run_with_it(
    ledger: SkillVocabulary, command: str, status: str
) -> None:
    sentence = "The skill used --member to unify split accounts"
    assert _verdict(sentence, _evidence((command, SCRIPT)), ledger) == status


@pytest.mark.parametrize(
    ("command", "status"),
    [
        (f"python3 {SCRIPT} list --since 2024-01-01", "pass"),
        (f"python3 {SCRIPT} list --member Ann --since 2024-01-01", "pass"),
        (f"python3 {SCRIPT} totals 4 --since 2024-01-01", "fail"),  # another subcommand
        (f"python3 {SCRIPT} list --member Ann", "fail"),  # not date-windowed
        (f"python3 {SCRIPT} list | grep --since", "fail"),  # not its argument
    ],
)
def test_a_parenthesis_restating_a_description_gives_its_exact_arguments(
    ledger: SkillVocabulary, command: str, status: str
) -> None:
    sentence = "The skill used a date-windowed list query (--since)"
    assert _verdict(sentence, _evidence((command, SCRIPT)), ledger) == status


@pytest.mark.parametrize(
    "sentence",
    [
        "The skill ran a search of the book",  # "a window": a common noun, not the command
        "The skill ran a window around the anchor",
        "The final answer mentions totals",  # only what is run is the skill's command
        "The skill never ran totals to size up the book",  # denied for one purpose only
        "The skill ran totals to verify the book balances",  # an outcome the author may hold
        "The skill ran totals and then summarized",  # a second act
        "The skill ran members before totals",  # only reads are ordered here
        "The skill ran totals to size up the book before listing members",
        "The skill ran totals to the end of the book",
        "The skill used a date-windowed list query (--since) rather than all-time totals",
        "The skill used a failing list query (--since)",  # an outcome no parenthesis restates
        "The skill used a date-windowed totals query (--member)",  # no flag of that subcommand
        "The skill used a list query (--since or --member) or equivalent",
        # denied, a parenthesis may give one example of what is forbidden
        "The skill never used a date-windowed list query (--since)",
        "The agent never ran a deploy command (`kubectl apply`)",
    ],
)
def test_forms_that_could_change_the_meaning_still_refuse(
    ledger: SkillVocabulary, sentence: str
) -> None:
    assert compile_sentence(sentence, ledger) is None
    assert refuse_sentence(sentence, "pass_criteria", vocabulary=ledger).why


def test_a_purpose_is_dropped_only_after_an_act(ledger: SkillVocabulary) -> None:
    read = compile_sentence("The agent read `SKILL.md` to learn the commands.")
    assert read is not None and check_text(read.check) == "file_read(path='SKILL.md')"
    assert compile_sentence("The final answer mentions `x` to help the user.") is None
    assert compile_sentence("`SKILL.md` was copied to `notes.md`.") is None
    # an extent, a destination or an outcome after "to" is no purpose
    assert compile_sentence("The agent read `SKILL.md` to the end.") is None
    assert compile_sentence("The agent ran `make` to completion.") is None
    assert compile_sentence("The agent ran `make` to completion before answering.") is None
    assert compile_sentence("The agent wrote `out.log` to disk storage.") is None
    assert compile_sentence("The agent read `SKILL.md` to 100 lines.") is None


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        (
            "The agent read `a.md` and `b.md`, not just `a.md`.",
            "all_of[file_read(path='a.md'), file_read(path='b.md')]",
        ),
        ("The agent read `a.md` or `b.md`, not just `a.md`.", None),  # only `a.md` may be read
        ("The agent read `a.md`, not only `b.md`.", None),  # was `b.md` read too?
        ("The agent read `a.md`, not just once.", None),  # a count, not an object
        ("The agent never read `a.md` and `b.md`, not just `a.md`.", None),
    ],
)
def test_not_just_is_dropped_only_where_the_claim_says_it(
    sentence: str, checks: str | None
) -> None:
    compiled = compile_sentence(sentence)
    assert (check_text(compiled.check) if compiled else None) == checks


def test_explain_reads_the_vocabulary_of_the_target_skill(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "fixture"
    shutil.copytree(ROOT / "tests/fixtures/prose-variants", root)
    skill = root / ".agents/skills/realtime-web/SKILL.md"
    skill.write_text(
        skill.read_text() + "\n```sh\npython3 <skill>/scripts/probe.py ports <app>\n```\n"
    )
    target = root / "agentic-evals/targets/realtime-web"
    (target / "cases/workflow/workflow-ports.yaml").write_text(
        'case_id: "workflow-ports"\ntitle: "Checks the ports"\n'
        'input:\n  user_prompt: "Which ports are open?"\n'
        "assert:\n  required:\n"
        '    - description: "The skill ran ports to list them before answering."\n'
    )
    suite = target / "cases/workflow/suite.yaml"
    suite.write_text(
        suite.read_text() + '  - "targets/realtime-web/cases/workflow/workflow-ports.yaml"\n'
    )
    explain = ["explain", "--repo", str(root / "agentic-evals"), "--case", "workflow-ports"]
    with pytest.raises(SystemExit) as exit_info:
        main(explain)
    assert exit_info.value.code == 0
    shown = capsys.readouterr().out
    assert "required[0] rules" in shown and "(purpose dropped: to list them)" in shown
    with pytest.raises(SystemExit) as exit_info:
        main([*explain, "--json"])
    payload = json.loads(capsys.readouterr().out)
    (entry,) = payload["cases"][0]["entries"]
    assert entry["decided_by"] == "rules"
    tree = entry["provenance"][0]["tree"]
    assert "ports [subcommand of scripts/probe.py]" in tree
    assert "(purpose dropped: to list them)" in tree


def test_script_ran_with_a_command_needs_the_run_itself_to_match() -> None:
    from evaluator.contract.models import ScriptRanCheck
    from evaluator.judge.checks.attempt_sessions import run_check

    check = ScriptRanCheck(
        kind="script_ran", path="scripts/ledger.py", command=r"ledger\.py\s+totals"
    )
    ran = _evidence((f"python3 {SCRIPT} totals 4", SCRIPT))
    other = _evidence((f"python3 {SCRIPT} window 4", SCRIPT), (f"echo {SCRIPT} totals", None))

    def status(evidence: SessionEvidence) -> str:
        context = JudgeContext(
            evidence=evidence, workspace=Path("/ws"), ref_prefix="e.json", workspace_available=False
        )
        return run_check(check, context).status

    assert status(ran) == "pass"
    assert status(other) == "fail"  # it ran, and `totals` was named, but never by its run


def test_explain_of_a_skill_creator_suite_reads_the_vocabulary_of_its_skill_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `--evals`: the skill is mounted from its own folder, not read under the source workspace.
    skill = tmp_path / "ledger"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(LEDGER)
    (skill / "scripts").mkdir()
    (skill / "scripts/ledger.py").write_text("print('ledger')\n")
    evals = {
        "skill_name": "ledger",
        "evals": [
            {
                "id": 1,
                "prompt": "Who writes in the book?",
                "expected_output": "The members.",
                "expectations": ["The skill ran members before answering"],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    with pytest.raises(SystemExit) as exit_info:
        main(["explain", "--evals", str(skill / "evals/evals.json"), "--json"])
    assert exit_info.value.code == 0
    (entry,) = json.loads(capsys.readouterr().out)["cases"][0]["entries"]
    assert entry["decided_by"] == "rules"
    assert "members [subcommand of scripts/ledger.py]" in entry["provenance"][0]["tree"]


def test_explain_hands_the_compiler_the_agents_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The judge may not name an agent; `explain` (as a run and `rejudge` do) hands it the
    adapters' names as data, so "Codex ran ..." is the session's one agent."""
    skill = tmp_path / "ledger"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(LEDGER)
    evals = {
        "skill_name": "ledger",
        "evals": [
            {
                "id": 1,
                "prompt": "Who writes in the book?",
                "expected_output": "The members.",
                "expectations": ["Claude Code opened `SKILL.md`", "Claudette opened `SKILL.md`"],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    with pytest.raises(SystemExit) as exit_info:
        main(["explain", "--evals", str(skill / "evals/evals.json"), "--judge", "rules", "--json"])
    assert exit_info.value.code == 0
    entries = json.loads(capsys.readouterr().out)["cases"][0]["entries"]
    decided = {entry["description"]: entry["decided_by"] for entry in entries}
    assert decided["Claude Code opened `SKILL.md`"] == "rules"
    assert decided["Claudette opened `SKILL.md`"] != "rules"
    (named,) = [e for e in entries if e["description"].startswith("Claude Code")]
    assert "(agent claude code)" in named["provenance"][0]["tree"]
