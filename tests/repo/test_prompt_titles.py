"""A case titled by its prompt (an evals.json eval without `name`): cut at a word, and the
fingerprint every earlier run and converted suite recorded for it kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli.main import main
from evaluator.contract.digest import case_digest
from evaluator.contract.titles import TITLE_LENGTH, prompt_title
from evaluator.repo import EvalRepo, load_repo

REPORT = (
    "Write a short summary of the attached quarterly report for the finance team. The reader"
    " is busy, so keep it under five bullets.\nSecond line."
)
URL = (
    "Open https://example.com/a/very/long/path/without/any/spaces/at/all/that/goes/on/and/on"
    "/forever/and/ever.html and summarise it."
)
SHORT = "Add a nullable avatar_url column to the users table."
# Each case's fingerprint as `main` before round 15 computed it (titles cut at 80 characters):
# runs recorded then must stay comparable (`compare`/`gate` refuse changed definitions).
DIGESTS = {
    "eval-1": "sha256:be26a744a2cca9d43ab7be5d6033871b5050eb30203ce18efaec6fa97a142420",
    "eval-2": "sha256:63662aa07719c3156f3e4a7672561d333fcd1c27b1b36a04c0777731c8b4cc39",
    "eval-3": "sha256:afcd5c62a6c442c0652f5e5d43167c52341c43f08f2de48352804068256d3d8e",
    "eval-4": "sha256:db3ce9b3cbcec04d55b6270aef662dedd33e668e284f55c6dd2199fdf2679bb8",
}
# The same evals converted by `main`'s `convert` and loaded (its cases name the skill's files at
# their source-workspace paths, so they differ from the evals.json's own).
CONVERTED = {
    "eval-1": "sha256:c313f1fa2262870cff6fc2edf3ec117146a4591d49739bfb5c236cca3c86ea4e",
    "eval-2": "sha256:4c9e6170a8e5e65fc0f3a7174387df9056ba9fd4f636ae4f39a4eda67a651c55",
    "eval-3": "sha256:bd8f6e4678cb84d284510dd08b630519b8bf3e9f2ec8b46392ae12cc26cf3ec3",
    "eval-4": "sha256:6dcaddc2e81aa9c544a92ae2d1809d9ee9470125e7bbd46567676f5649c76d11",
}


def _skill(tmp_path: Path) -> Path:
    folder = tmp_path / "demo-skill"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: demo-skill\ndescription: d\n---\nBody.\n")
    evals = [
        {"id": 1, "prompt": REPORT, "assertions": ["The answer has at most five bullets"]},
        {"id": 2, "prompt": URL, "assertions": ["The answer summarises the page"]},
        {"id": 3, "prompt": SHORT, "assertions": ["The answer names users"]},
        {"id": 4, "name": "Quarterly summary", "prompt": REPORT, "assertions": ["x"]},
    ]
    evals[3]["assertions"] = ["The answer has at most five bullets"]
    text = json.dumps({"skill_name": "demo-skill", "evals": evals}, indent=2)
    (folder / "evals/evals.json").write_text(text)
    return folder


def _cases(repo: EvalRepo) -> dict[str, tuple[str, str]]:
    return {
        c.case_id: (c.case.title, case_digest(c.case))
        for t in repo.targets.values()
        for c in t.all_cases()
    }


def _load(path: Path) -> EvalRepo:
    repo, diagnostics = load_repo(path, None)
    assert not diagnostics.errors, [e.render() for e in diagnostics.errors]
    assert repo is not None
    return repo


def test_a_prompt_title_is_cut_at_a_word_and_keeps_its_fingerprint(tmp_path: Path) -> None:
    cases = _cases(_load(_skill(tmp_path)))
    assert {case: digest for case, (_, digest) in cases.items()} == DIGESTS
    # Before: "... for the finance team. The" (and "The reade" a character later).
    assert cases["eval-1"][0] == (
        "Write a short summary of the attached quarterly report for the finance team.…"
    )
    # No space late enough to cut at: cut where it must be, still marked as cut.
    assert cases["eval-2"][0].endswith("/goes/o…") and len(cases["eval-2"][0]) == TITLE_LENGTH
    assert cases["eval-3"][0] == SHORT  # short enough: whole, no mark
    assert cases["eval-4"][0] == "Quarterly summary"  # a name is the title


def test_convert_writes_the_cut_title_and_the_suite_keeps_the_fingerprints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "source/agentic-evals"
    with pytest.raises(SystemExit) as info:
        main(["convert", str(_skill(tmp_path)), "--out", str(out)])
    assert info.value.code == 0, capsys.readouterr().err
    written = "\n".join(p.read_text() for p in out.rglob("eval-1.yaml"))
    assert "finance team.…" in written and "team. The\n" not in written
    skill = tmp_path / "source/.agents/skills/demo-skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text((tmp_path / "demo-skill/SKILL.md").read_text())
    cases = _cases(_load(out))
    assert {case: digest for case, (_, digest) in cases.items()} == CONVERTED


@pytest.mark.parametrize(
    "title",
    [
        # A suite converted before round 15 holds the older cut: its fingerprint as it was.
        REPORT.splitlines()[0][:TITLE_LENGTH],
        # An author's own titles, however close to the prompt, are hashed as written.
        "Write a short summary of the attached quarterly report for the finance team.",
        "Write a short summary of the attached quarterly report for the finance team...",
        "Quarterly summary",
    ],
)
def test_only_a_title_made_from_the_prompt_is_hashed_as_the_older_cut(title: str) -> None:
    from evaluator.contract.titles import fingerprint_title

    assert prompt_title(REPORT) != title
    assert fingerprint_title(title, REPORT) == title
    assert fingerprint_title(prompt_title(REPORT), REPORT) == REPORT.splitlines()[0][:80]
