"""The comparative and trigger reports as a reader sees them: words that say what happened, and
markdown shown as a page, never as its source (docs/real-repos.md, "Upstream repos, ninth
session")."""

from __future__ import annotations

import re
from pathlib import Path

from evaluator.contract.models import NotCheck, WorkspaceFileExistsCheck
from evaluator.evidence import SessionEvidence
from evaluator.html.markdown import render_markdown
from evaluator.judge import JudgeContext
from evaluator.judge.checks.attempt_sessions import run_check


def test_markdown_is_rendered_and_every_text_escaped() -> None:
    text = (
        "# Title <i>\n\n"
        "Some `<b>code</b>` and **bold <u>**.\n"
        "continued line\n\n"
        "- first <script>x</script>\n"
        "  carried on\n"
        "- second\n\n"
        "1. do this\n"
        "2. then that\n\n"
        "| case | text |\n"
        "|---|---|\n"
        "| a<b | pipe \\| inside |\n\n"
        "```\n<raw> & kept\n```\n"
    )
    rendered = render_markdown(text, heading_offset=1)
    # The layout between tags and a paragraph's line breaks are the renderer's own.
    html = re.sub(r">\s+<", "><", rendered).replace("\n", " ")
    assert "<h2>Title &lt;i&gt;</h2>" in html
    assert (
        "<p>Some <code>&lt;b&gt;code&lt;/b&gt;</code> and <strong>bold &lt;u&gt;</strong>."
        " continued line</p>" in html
    )
    assert (
        "<ul><li>first &lt;script&gt;x&lt;/script&gt; carried on</li><li>second</li></ul>" in html
    )
    assert "<ol><li>do this</li><li>then that</li></ol>" in html
    assert "<thead><tr><th>case</th><th>text</th></tr></thead>" in html
    assert "<tr><td>a&lt;b</td><td>pipe | inside</td></tr>" in html
    assert "<pre><code>&lt;raw&gt; &amp; kept </code></pre>" in html
    assert "<script>" not in html and "<i>" not in html and "|---|" not in html


def test_a_double_negation_reads_as_what_was_seen(tmp_path: Path) -> None:
    """A fail signal "never reads X" compiles to not(read X), kept as a required entry's check
    not(not(read X)): its note said "no read of X was observed, as `not` requires, which `not`
    rules out". not(not(x)) is x, and is said as x's own detail."""
    (tmp_path / "a.md").write_text("# A\n")
    context = JudgeContext(
        evidence=SessionEvidence(session_path="s"), workspace=tmp_path, ref_prefix="e.json"
    )
    exists = WorkspaceFileExistsCheck(kind="workspace_file_exists", path="b.md")
    twice = run_check(NotCheck(operand=NotCheck(operand=exists)), context)
    once = run_check(exists, context)
    assert (twice.status, once.status) == ("fail", "fail")
    assert twice.detail == once.detail and "`not`" not in twice.detail
    present = WorkspaceFileExistsCheck(kind="workspace_file_exists", path="a.md")
    assert run_check(NotCheck(operand=NotCheck(operand=present)), context).detail == (
        run_check(present, context).detail
    )
    # A single negation still says what `not` made of it.
    assert run_check(NotCheck(operand=exists), context).detail.endswith(", as `not` requires")


def test_the_run_html_shows_code_spans_of_notes_as_code(tmp_path: Path) -> None:
    """report.html showed our notes' `code` spans with their backticks, as markdown source;
    they are code now, and every other character of the note is still escaped."""
    from evaluator.artifacts.models import CaseResult
    from evaluator.artifacts.rundir import RunDir
    from evaluator.html.run_page import render_run_html
    from tests.artifacts.test_attribution import manifest

    note = "the case has no assertions: add `checks:` to <case>.yaml"
    result = CaseResult.model_validate(
        {"case_id": "c", "workspace_root": None, "thread_id": None, "session_path": None}
        | {"status": "blocked", "blocked_reason": "unclear-rule", "assertions": []}
        | {"notes": [note]}
    )
    html = render_run_html(RunDir(tmp_path), manifest(["c"]), [result])
    assert "add <code>checks:</code> to &lt;case&gt;.yaml" in html
    assert "`checks:`" not in html


def test_a_trigger_prompt_s_failure_says_whether_it_missed_or_misfired() -> None:
    """The Failures section of a trigger run said "0 of 1 valid attempts fired as expected" for
    both ways of going wrong; a missed prompt and a misfire need different fixes."""
    from evaluator.pipeline.triggers import prompt_note

    assert prompt_note(True, 0, 1) == "missed: should fire, fired in 0 of 1 valid attempts"
    assert prompt_note(False, 0, 1) == "misfired: should not fire, fired in 1 of 1 valid attempts"
    assert prompt_note(True, 2, 3) == "should fire, fired in 2 of 3 valid attempts"
    assert prompt_note(False, 3, 3) == "should not fire, fired in 0 of 3 valid attempts"


def test_the_trigger_section_does_not_claim_every_attempt_was_stopped() -> None:
    """Trigger-only stops an attempt still running when the skill fires; the section said
    "each attempt stopped at the decision" beside "0 stopped at the decision"."""
    from evaluator.artifacts.trigger_report import render_trigger_section

    text = render_trigger_section(
        {"skill": "s", "attempts": 1, "trigger_only": True, "prompts": [], "over_prompts": {}}
    )
    assert "each attempt stopped" not in text
    assert "trigger-only: an attempt still running when the skill fires is stopped there" in text


def test_a_read_whose_command_failed_is_no_read(tmp_path: Path) -> None:
    """Found by `evaluate --baseline none` on an upstream repo: the no-skill variant's agent ran
    `cat .agents/skills/x/SKILL.md`, which failed (no such file, exit 1), and `file_read` and
    `read_before` on that file passed: with no file to compare outputs with, the command table
    counted the attempt as a read."""
    from evaluator.contract.models import FileReadCheck, ReadBeforeCheck

    def context(exit_code: int, outcome: str) -> JudgeContext:
        evidence = SessionEvidence(session_path="s.jsonl", complete=True, final_answer="done")
        command = "cat -- .agents/skills/x/SKILL.md"
        evidence.add("command_observed", 3, command=command, call_id="c1", exit_code=exit_code)
        evidence.add(
            "file_read_observed",
            3,
            path=f"{tmp_path}/.agents/skills/x/SKILL.md",
            access="read",
            source="shell-parse",
            detail="cat .agents/skills/x/SKILL.md",
            call_id="c1",
            outcome=outcome,
        )
        evidence.add("tool_result", 4, call_id="c1", exit_code=exit_code, text="cat: no such file")
        return JudgeContext(evidence=evidence, workspace=tmp_path, ref_prefix="e.json")

    read = FileReadCheck(kind="file_read", path=".agents/skills/x/SKILL.md")
    order = ReadBeforeCheck(
        kind="read_before", first=".agents/skills/x/SKILL.md", then=".agents/skills/x/references/*"
    )
    failed_read = context(1, "failed")
    verdict = run_check(read, failed_read)
    assert verdict.status == "fail"
    assert "the read by cat .agents/skills/x/SKILL.md failed" in verdict.detail
    assert run_check(order, failed_read).status == "fail"
    # The same read that took (a file the agent made and removed since) still counts.
    assert run_check(read, context(0, "ok")).status == "pass"
    assert run_check(order, context(0, "ok")).status == "pass"
