"""A skill handed around packaged, as skill-creator's `package_skill.py` makes it: `<name>.skill`,
a zip archive of the folder (`A-K-6/geminicli-git-helper` ships one; real skills round 9,
docs/real-repos.md). Given where a candidate SKILL.md goes (`score --skill`, `triggers --skill`,
`evaluate --candidate`) it was `internal error: UnicodeDecodeError`, exit 70; given where the
skill folder goes (`run --evals ... --skill`) the hint sent the user to `score --skill FILE`,
which then crashed. Each is now one line naming the file and saying to unpack it, exit 2, before
any run starts; a file that is not UTF-8 text says so. Our own archive and bytes."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from evaluator.errors import InputError
from evaluator.evaluate.variants import parse_variant
from evaluator.repo.candidate_skill import read_candidate_skill
from tests.interop.test_evals_json import run_cli, skill

BODY = "---\nname: demo-skill\ndescription: d\n---\nBody.\n"


def _packaged(tmp_path: Path) -> Path:
    archive = tmp_path / "demo-skill.skill"
    with zipfile.ZipFile(archive, "w") as packed:
        packed.writestr("demo-skill/SKILL.md", BODY)
        packed.writestr("demo-skill/scripts/run.sh", "echo hi\n")
    return archive


@pytest.mark.parametrize(
    "command,option",
    [
        (["score"], "--skill"),
        (["triggers"], "--skill"),
        (["evaluate"], "--candidate"),
        (["run"], "--skill"),
    ],
)
def test_a_packaged_skill_is_one_line_saying_to_unpack_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], option: str
) -> None:
    folder = skill(tmp_path, {"evals": [{"prompt": "p", "expectations": ["x"]}]})
    archive = _packaged(tmp_path)
    runs = tmp_path / "runs"
    code, _, err = run_cli(
        [*command, "--evals", str(folder), option, str(archive), "--runs-dir", str(runs)], capsys
    )
    assert code == 2, err
    assert str(archive) in err and "zip archive" in err and "unzip" in err, err
    assert "internal error" not in err and "\n" not in err.strip(), err
    assert not runs.exists()


def test_bytes_that_are_not_text_are_named_as_such(tmp_path: Path) -> None:
    binary = tmp_path / "SKILL.md"
    binary.write_bytes(b"---\nname: x\n\xa6\xff---\n")
    with pytest.raises(InputError) as raised:
        read_candidate_skill(binary, "--skill")
    assert "not UTF-8 text (byte 12)" in raised.value.render()
    with pytest.raises(InputError):
        parse_variant(str(binary), "candidate", candidate=True)


def test_a_text_skill_md_is_read_as_before(tmp_path: Path) -> None:
    """Look-alikes: a SKILL.md whose text begins with the letters `PK`, and one with accents."""
    for text in ("PK tools\n" + BODY, BODY.replace("Body", "Corps déjà vu")):
        path = tmp_path / "SKILL.md"
        path.write_text(text, encoding="utf-8")
        assert read_candidate_skill(path, "--skill") == text
        assert parse_variant(str(path), "candidate", candidate=True).kind == "file"
