"""The README's commands stay runnable offline: every command family it shows has a scripted form
(`--behaviors`) whose behaviours exist for the cases it names."""

from __future__ import annotations

import re
import shlex

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()


def _code_lines() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", README, re.S)
    return [line.split("  #")[0].strip() for block in blocks for line in block.splitlines()]


def _words(line: str) -> list[str]:
    # `S="..."` lines build up an argument string the next lines use as $S.
    return shlex.split(line.replace('"$S ', "").replace('"', ""), posix=True)


def test_run_score_and_gate_each_have_an_offline_form() -> None:
    lines = _code_lines()
    offline = " ".join(line for line in lines if "--behaviors" in line)
    assert "agentic-eval run --behaviors" in offline
    assert any(line.startswith("S=") and "--behaviors" in line for line in lines)
    assert any("agentic-eval score $S" in line for line in lines)
    assert any("agentic-eval gate" in line for line in lines)


def test_the_offline_forms_name_behaviours_that_exist_for_their_cases() -> None:
    words = [
        w
        for line in _code_lines()
        if "--behaviors" in line or "--case" in line
        for w in _words(line)
    ]
    behaviors = [words[i + 1] for i, w in enumerate(words) if w == "--behaviors"]
    cases = [words[i + 1] for i, w in enumerate(words) if w == "--case"]
    assert behaviors and cases
    for folder in behaviors:
        assert (ROOT / folder).is_dir(), folder
    scripted = {p.stem for p in (ROOT / behaviors[-1]).glob("*.yaml")}
    assert set(cases) <= scripted, f"{set(cases) - scripted} have no behaviour in {behaviors[-1]}"


def test_install_instructions_never_name_the_package_index() -> None:
    """`agentic-eval` is not published; a similar name on the index belongs to someone else."""
    for path in [ROOT / "README.md", ROOT / "skill-eval/SKILL.md", *(ROOT / "docs").glob("*.md")]:
        text = path.read_text()
        # (a wheel file, `agentic_eval-<version>-...whl`, is fine)
        named = r"install ['\"]?agentic[-_]eval(?=[\[\s'\"`]|$)"
        assert not re.search(rf"(pip|pipx|uv tool) {named}", text, re.M), path
