"""Did a file's content reach the agent? The content module alone, with no agent."""

from __future__ import annotations

import pytest

from evaluator.contract.sections import section_lines
from evaluator.evidence import content
from evaluator.evidence.content import (
    WINDOW_WORDS,
    Shown,
    SourceText,
    ToolText,
    find_shown,
    line_words,
)

SKILL = """---
name: packager
description: Packs reports into archives for the release team every single week.
---
# Packager

Always run the packaging script before you touch any report file.

## Routing

New reports go to references/new-report.md for the complete procedure.
Old reports are renamed with references/rename.md and never deleted at all.

### Details

Details belong to the routing section and say how routes are picked.

## Release

Every release is tagged by the release manager after the checks pass.
"""


def _out(text: str, line: int = 10, ref: str = "msg-9") -> ToolText:
    return ToolText("output", line, text, ref)


def _shown(texts: list[ToolText], files: list[SourceText] | None = None, prompt: str = "") -> Shown:
    return find_shown(files or [SourceText("SKILL.md", SKILL)], texts, prompt)["SKILL.md"]


def _numbered(text: str, prefix: str) -> str:
    return "\n".join(prefix.format(n=n) + line for n, line in enumerate(text.splitlines(), 1))


@pytest.mark.parametrize(
    "shape",
    [
        "{n:6}→",  # Claude Code's Read
        "{n:6}\t",  # cat -n, nl
        "{n}:",  # grep -n
        "SKILL.md:{n}:",  # grep -n over several files
        "SKILL.md-{n}-",  # grep -n context lines
        "SKILL.md:",  # grep over several files
        "{n:4} │ ",  # bat
        "\x1b[32m{n:6}\x1b[0m\t\x1b[1m",  # colour around a numbered line
    ],
)
def test_each_prefix_agents_add_is_normalised_away(shape: str) -> None:
    shown = _shown([_out(_numbered(SKILL, shape))])
    assert shown.reached and shown.share() == 1.0


def test_a_line_that_starts_like_a_prefix_still_matches_under_a_prefix() -> None:
    text = "12: reports ship on fridays after the release manager signs them off today\n"
    files = [SourceText("notes.md", text)]
    for output in (text, _numbered(text, "{n:6}\t"), _numbered(text, "notes.md:{n}:")):
        assert find_shown(files, [_out(output)])["notes.md"].share() == 1.0


def test_ansi_colour_inside_a_line_is_removed() -> None:
    assert line_words("\x1b[31mNew\x1b[0m reports \x1b[1;4mgo\x1b[m") == ["new", "reports", "go"]


def test_the_threshold_is_one_constant_and_its_edge_holds() -> None:
    assert WINDOW_WORDS == 8
    # `references/new-report.md` is three words: word characters decide, not spaces.
    below = " ".join(line_words(SKILL.splitlines()[10])[: WINDOW_WORDS - 1])
    at = " ".join(line_words(SKILL.splitlines()[10])[:WINDOW_WORDS])
    assert not _shown([_out(below)]).reached
    assert _shown([_out(at)]).reached


def test_words_are_word_characters_and_each_ideograph_is_one() -> None:
    assert line_words('echo "`References/x.md`," OK') == ["echo", "references", "x", "md", "ok"]
    assert line_words("先读取参考文件 then") == ["先", "读", "取", "参", "考", "文", "件", "then"]
    files = [SourceText("zh.md", "# 说明\n\n迁移之前先读取参考文件再运行脚本。\n")]
    assert find_shown(files, [_out("     3→迁移之前先读取参考")])["zh.md"].reached
    assert not find_shown(files, [_out("迁移之前先读取")])["zh.md"].reached


def test_a_file_shorter_than_a_window_counts_whole() -> None:
    files = [SourceText("VERSION.md", "Release two point one\n")]
    for output in (
        "Release two point one",
        "     1→Release two point one\n",
        "x\n1\tRelease two point one",
    ):
        assert find_shown(files, [_out(output)])["VERSION.md"].reached, output
    assert not find_shown(files, [_out("Release two point")])["VERSION.md"].reached
    # Printed as it is, whole lines of its own: the same words inside another line are not it.
    assert not find_shown(files, [_out("Notes: Release two point one is out")])[
        "VERSION.md"
    ].reached
    version = [SourceText("VERSION", "1.0\n")]
    assert not find_shown(version, [_out("installed tool version 1.0.3")])["VERSION"].reached
    assert find_shown(version, [_out("1.0")])["VERSION"].reached


def test_front_matter_is_not_the_body() -> None:
    front = "name: packager\ndescription: Packs reports into archives for the release team"
    assert not _shown([_out(front + " every single week.")]).reached


@pytest.mark.parametrize(
    "output",
    [
        "",  # head -c 0, head -n 0
        "       7 SKILL.md",  # wc -l
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  SKILL.md",
        "Process exited with code 0\nOutput:\n",  # cp, cat > /dev/null
        "REPORTS: 2 ROUTES, 1 RELEASE",  # a program that read the file and printed something else
    ],
)
def test_outputs_that_show_no_content_are_no_read(output: str) -> None:
    assert not _shown([_out(output)]).reached


def test_a_partial_read_is_partial_and_the_share_counts_lines() -> None:
    head = "\n".join(SKILL.splitlines()[:11])  # up to the first routing line
    shown = _shown([_out(head)])
    assert shown.reached
    assert 0 < shown.share() < 0.5
    rest = "\n".join(SKILL.splitlines()[11:])
    assert _shown([_out(head), _out(rest, line=12)]).share() == 1.0


def test_a_window_never_spans_a_truncation_marker() -> None:
    line = "New reports go to references/new-report.md for the complete procedure."
    cut = line[:30] + "…120 tokens truncated…" + line[30:]
    assert not _shown([_out(cut)]).reached
    assert _shown([_out(line + "\n…4 chars truncated…\nnothing")]).reached


def test_sections_run_to_the_next_heading_of_the_same_or_a_higher_level() -> None:
    routing = section_lines(SKILL, "## Routing")
    assert routing is not None
    lines = SKILL.splitlines()
    inside = [lines[n - 1] for n in routing]
    assert any("New reports" in line for line in inside)
    assert any("Details belong" in line for line in inside)  # a ### stays inside the ##
    assert not any("Every release" in line for line in inside)
    assert section_lines(SKILL, "Release") is not None  # any level
    assert section_lines(SKILL, "# Routing") is None  # wrong level
    fenced = "# A\n```\n# not a heading\n```\ntext\n# B\n"
    assert section_lines(fenced, "# A") == range(2, 6)


def test_a_section_share_only_counts_its_own_lines() -> None:
    routing = section_lines(SKILL, "## Routing")
    release = section_lines(SKILL, "## Release")
    assert routing is not None and release is not None
    body = "\n".join(SKILL.splitlines()[10:12])
    shown = _shown([_out(body)])
    assert 0.5 <= shown.share(routing) < 1
    assert shown.share(release) == 0


def test_text_the_agent_typed_before_the_output_does_not_count() -> None:
    line = SKILL.splitlines()[10]
    typed = ToolText("input", 5, f"echo '{line}' > notes.md && cat notes.md")
    shown = _shown([typed, _out(line, line=6)])
    assert not shown.reached
    assert shown.withheld is not None and "typed" in shown.withheld


def test_text_typed_after_the_output_showed_it_does_not_undo_the_read() -> None:
    # Read the template, then write a file that follows it: the read still happened.
    line = SKILL.splitlines()[10]
    shown = _shown(
        [_out(SKILL, line=4), ToolText("input", 8, f"cat > out.md <<'EOF'\n{line}\nEOF")]
    )
    assert shown.reached and shown.share() == 1.0


def test_a_file_the_agent_wrote_then_printed_is_not_the_original() -> None:
    files = [SourceText("SKILL.md", SKILL, written_at=6)]
    assert _shown([_out(SKILL, line=4)], files).reached
    shown = _shown([_out(SKILL, line=7)], files)
    assert not shown.reached and shown.withheld is not None


def test_prompt_text_does_not_count() -> None:
    line = SKILL.splitlines()[10]
    shown = _shown([_out(line)], prompt=f"Please follow this: {line}")
    assert not shown.reached and shown.withheld is not None


def test_text_shared_with_another_file_that_reached_the_agent_counts_for_that_file() -> None:
    shared = "Every release is tagged by the release manager after the checks pass.\n"
    a = SourceText("a.md", "# A\n" + shared)
    b = SourceText("b.md", "Only b says that reports are archived for seven long years.\n" + shared)
    seen = find_shown([a, b], [_out(b.text)])
    assert seen["b.md"].reached
    assert not seen["a.md"].reached
    # Neither file's own words shown: the shared text could be either's, so it counts for both.
    both = find_shown([a, b], [_out(shared)])
    assert both["a.md"].reached and both["b.md"].reached


def test_the_first_sighting_orders_by_line_then_by_place_in_the_output() -> None:
    a = SourceText("a.md", "Alpha reports are archived under the alpha folder every week.\n")
    b = SourceText("b.md", "Beta reports are archived under the beta folder every month.\n")
    seen = find_shown([a, b], [_out(b.text + a.text, line=4)])
    first_a, first_b = seen["a.md"].first, seen["b.md"].first
    assert first_a is not None and first_b is not None and first_b < first_a
    assert first_a.ref == "msg-9"


def test_a_file_inside_a_large_output_is_found() -> None:
    # How fast is benchmarks/evidence_throughput.py's question: no timing threshold here.
    noise = "unrelated build log line with numbers 12345 and words\n" * 200_000  # ~11 MB
    shown = _shown([_out(noise + SKILL + noise)])
    assert shown.reached and shown.share() == 1.0


def test_one_huge_line_is_read_in_pieces_and_still_matches() -> None:
    body = " ".join(SKILL.splitlines()[6:12])
    line = "noise " * 300_000 + body + " noise" * 300_000  # one 3.6 MB line
    shown = _shown([_out(line)])
    assert shown.reached and shown.first is not None and shown.first.position == 300_000


def test_a_text_repeated_under_a_changing_head_is_matched_as_a_whole_text_would_be(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Codex puts a chunk id and a wall time above every output: the same text printed again is
    # found from the earlier match. Each text's matches must be exactly those of matching it
    # whole: windows that start in the head and run into the seen lines, a file shorter than a
    # window (a second window size), a cut.
    files = [
        SourceText("SKILL.md", SKILL),
        SourceText("VERSION.md", "Release two point one\n", written_at=40),
        SourceText("routes.md", "Old reports are renamed\nwith references/rename.md soon\n"),
    ]
    body = "with references/rename.md soon\n" + _numbered(SKILL, "{n:6}\t")
    body += "\n… 12 tokens truncated …\nRelease two point one\n"
    heads = ["", "Chunk ID: 1a\nWall time: 0.01 seconds\nOutput:\n", "Chunk ID: 2b\nOld reports"]
    texts = [ToolText("input", 2, "echo Every release is tagged by the release manager")]
    for number, head in enumerate(heads):
        texts.append(_out(head + body, line=10 + 20 * number, ref=f"msg-{number}"))
        texts.append(_out(head + " are renamed\n" + body, line=11 + 20 * number))
    index = content._Index(files)
    seen = content._SeenTexts(index)
    for text in texts:
        assert seen.matches(text.text) == content._whole_hits(index, text.text)
    cached = find_shown(files, texts, "Packs reports into archives")
    monkeypatch.setattr(content, "REPEAT_CACHE_CHARS", 0)  # every text matched whole
    assert cached == find_shown(files, texts, "Packs reports into archives")
    # routes.md's only window starts in a head and ends in the lines seen before.
    assert cached["routes.md"].reached and cached["VERSION.md"].reached


def test_a_kept_index_carries_nothing_from_one_proof_to_the_next() -> None:
    """The index of a set of files is built once and kept (every attempt of a case has the same
    skill files): what one proof matched, and when the agent wrote a file, stay that proof's."""
    files = [SourceText("SKILL.md", SKILL), SourceText("notes.md", "Write the notes first.\n")]
    shown_once = find_shown(files, [_out(SKILL)], "")
    assert shown_once["SKILL.md"].reached
    key = tuple((f.path, f.text) for f in files)
    assert key in content._INDEXES.kept
    assert not find_shown(files, [], "")["SKILL.md"].reached
    assert find_shown(files, [_out(SKILL)], "") == shown_once
    # The same texts, written by the agent before the output: its version, not the file's.
    written = [SourceText("SKILL.md", SKILL, written_at=5), files[1]]
    again = find_shown(written, [_out(SKILL)], "")["SKILL.md"]
    assert not again.reached and again.withheld == "shown only after the agent wrote the file"
    assert find_shown(files, [_out(SKILL)], "") == shown_once


def test_an_index_over_large_files_is_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(content, "INDEX_CACHE_CHARS", len(SKILL) - 1)
    files = [SourceText("big.md", SKILL)]
    assert find_shown(files, [_out(SKILL)], "")["big.md"].reached
    assert (("big.md", SKILL),) not in content._INDEXES.kept


def test_round_eleven_b_an_underscore_separates_words() -> None:
    """Red team, round 11b (docs/isolation.md): `tr ' ' '_'` prints a file whole; read as one
    word per line, no window of it matched. Both sides split the same way, so an identifier
    (`new_migration.py`) is the same words in the file and in an output."""
    from evaluator.evidence.content import line_words

    assert line_words("Run_the_script_before_you_commit") == [
        "run", "the", "script", "before", "you", "commit",
    ]  # fmt: skip
    assert line_words("python3 scripts/new_migration.py") == [
        "python3", "scripts", "new", "migration", "py",
    ]  # fmt: skip
