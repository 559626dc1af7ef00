"""The readings of a tool output a model reads as well as text (`evidence/decoded.py`, red team
15): each gives back the file a command printed so, and none hangs on a long output."""

from __future__ import annotations

import base64
import codecs
import time

from evaluator.evidence.decoded import decoded_views
from tests.conftest import ROOT

TEXT = (ROOT / ".agents/skills/db-migrations/SKILL.md").read_text()


def test_each_form_gives_the_text_back() -> None:
    wrapped = base64.encodebytes(TEXT.encode()).decode()  # `base64`: lines of 76
    reversed_lines = "\n".join(line[::-1] for line in TEXT.split("\n"))
    for output in (wrapped, base64.b64encode(TEXT.encode()).decode(), reversed_lines):
        assert TEXT in decoded_views(output)
    assert TEXT in decoded_views(codecs.encode(TEXT, "rot13"))
    # Words of the shell's own around the run: the body is still there, whole.
    framed = decoded_views(f"Output:\n{wrapped}\nexit 0")
    assert any(TEXT[100:400] in view for view in framed)


def test_plain_text_has_no_base64_reading() -> None:
    views = decoded_views("short words only, nothing encoded here\n")
    assert len(views) == 2  # reversed and rot13: no base64 run long enough


def test_a_long_output_is_read_in_linear_time() -> None:
    for output in ("a" * 200_001 + "!", " " * 200_000 + "!", "ab c" * 50_000 + "!"):
        started = time.monotonic()
        decoded_views(output)
        assert time.monotonic() - started < 2
