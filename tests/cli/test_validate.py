"""`agentic-eval validate`: the demo and an upstream-shaped repo pass; a corpus of bad inputs each
yields its one located line and exit 2, without a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from evaluator.cli.main import main
from tests.conftest import ROOT, copy_demo

T = "targets/db-migrations"
CASE = f"{T}/cases/routing/routing-rename-table.yaml"
SUITE = f"{T}/cases/routing/suite.yaml"
TARGET = f"{T}/target.yaml"

GOOD_CASE = """case_id: "routing-rename-table"
title: "Renaming a table routes to rename-table.md"
input:
  user_prompt: "Rename clients to customers."
assert:
  required:
    - description: "The rename reference was consulted."
      checks:
        - kind: file_read
          path: "references/rename-table.md"
"""


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def write(repo: Path, rel: str, text: str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


ADD_COLUMN_CASE = "targets/db-migrations/cases/routing/routing-add-column.yaml"
ADD_COLUMN_CHECKS = (
    "      checks:\n        - kind: file_read\n"
    '          path: ".agents/skills/db-migrations/references/add-column.md"'
)


def validate_with_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], checks: str
) -> tuple[int, str]:
    """`validate` of a copy of the demo repo whose routing-add-column case has `checks` (YAML at
    that case's indentation) in place of its first entry's checks: the exit code and stderr."""
    from tests.conftest import copy_demo

    repo = copy_demo(tmp_path)
    replace_in(repo, ADD_COLUMN_CASE, ADD_COLUMN_CHECKS, checks)
    code, _, err = run_cli(["validate", "--repo", str(repo)], capsys)
    return code, err


def replace_in(repo: Path, rel: str, old: str, new: str) -> None:
    path = repo / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def case_text(**overrides: str) -> Callable[[Path], None]:
    def mutate(repo: Path) -> None:
        text = GOOD_CASE
        for old, new in overrides.items():
            text = text.replace(old.replace("_SP_", " "), new)
        write(repo, CASE, text)

    return mutate


@dataclass
class Bad:
    name: str
    mutate: Callable[[Path], None]
    file: str
    line: int | None
    field: str | None
    message: str


def _dup_case(repo: Path) -> None:
    replace_in(
        repo,
        f"{T}/cases/routing/routing-backfill.yaml",
        'case_id: "routing-backfill"',
        'case_id: "routing-add-column"',
    )


def _non_utf8(repo: Path) -> None:
    (repo / CASE).write_bytes(b'case_id: "x"\ntitle: "caf\xe9"\n')


def _dir_for_file(repo: Path) -> None:
    (repo / CASE).unlink()
    (repo / CASE).mkdir()


def _no_skill(repo: Path) -> None:
    (repo.parent / ".agents/skills/db-migrations/SKILL.md").unlink()


def _symlinked_entry_skill(repo: Path) -> None:
    skill = repo.parent / ".agents/skills/db-migrations"
    (skill / "SKILL.md").rename(skill / "REAL.md")
    (skill / "SKILL.md").symlink_to(skill / "REAL.md")


def _symlink_in_root(repo: Path) -> None:
    (repo.parent / ".agents/skills/db-migrations/references/passwd.md").symlink_to("/etc/passwd")


def _symlinked_fixture(repo: Path) -> None:
    fixtures = repo / T / "fixtures"
    fixtures.mkdir()
    (fixtures / "seed.sql").symlink_to("/etc/passwd")
    case_text(
        **{
            "assert:": "setup:\n  copy_fixtures:\n"
            '    - {source: "seed.sql", target: "seed.sql"}\n'
            "assert:"
        }
    )(repo)


def _target_dir_renamed(repo: Path) -> None:
    replace_in(repo, TARGET, 'target_id: "db-migrations"', 'target_id: "db-migration"')


ALIAS_BOMB = "".join(
    f"{chr(97 + i)}: &{chr(97 + i)} [" + ",".join([f"*{chr(96 + i)}"] * 9) + "]\n"
    for i in range(1, 9)
)


def _alias_bomb(repo: Path) -> None:
    write(repo, CASE, 'a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]\n' + ALIAS_BOMB)


def _deep_nesting(repo: Path) -> None:
    write(repo, CASE, "case_id: " + "[" * 5000 + "]" * 5000 + "\n")


def _many_aliases(repo: Path) -> None:
    write(repo, CASE, "a: &a x\nb: [" + ", ".join(["*a"] * 1001) + "]\n")


def _unquoted_sentence_with_colon(repo: Path) -> None:
    case = f"{T}/cases/routing/routing-add-column.yaml"
    text = (repo / case).read_text()
    old = '        - "The accepted session evidence shows consultation of'
    assert old in text
    line = text[text.index(old) :].split("\n", 1)[0]
    write(
        repo, case, text.replace(line, "        - The final answer mentions `Routing: add-column`.")
    )


CORPUS = [
    # A sentence with `: ` inside, written without quotes, is a mapping to YAML (newuser5).
    Bad(
        "yaml-colon-in-unquoted-sentence",
        _unquoted_sentence_with_colon,
        f"{T}/cases/routing/routing-add-column.yaml",
        12,
        "assert.required[0].pass_criteria[0]",
        "expected string, got dict (YAML read 'The final answer mentions `Routing: add-column`.'"
        " as a mapping at its ': '; put the whole text in quotes)",
    ),
    Bad(
        "yaml-colon-in-unquoted-value",
        case_text(
            **{
                'title: "Renaming a table routes to rename-table.md"': (
                    "title: Renaming: routes to `rename-table.md`: always"
                )
            }
        ),
        CASE,
        2,
        None,
        "invalid YAML: mapping values are not allowed here (a ': ' inside a value written"
        " without quotes: put the value in quotes)",
    ),
    Bad(
        "yaml-unclosed-quote",
        case_text(**{'"Rename clients to customers."': '"Rename'}),
        CASE,
        7,
        None,
        "invalid YAML",
    ),
    Bad(
        "yaml-bad-indent",
        case_text(**{"assert:\n": "assert:\n required:\n  - x\n   y: 1\n"}),
        CASE,
        8,
        None,
        "invalid YAML",
    ),
    Bad(
        "case-id-list",
        case_text(**{'case_id: "routing-rename-table"': "case_id: [a, b]"}),
        CASE,
        1,
        "case_id",
        "expected string, got a list",
    ),
    Bad(
        "missing-title",
        case_text(**{'title: "Renaming a table routes to rename-table.md"\n': ""}),
        CASE,
        1,
        "title",
        "required field is missing",
    ),
    Bad(
        "missing-user-prompt",
        case_text(**{'  user_prompt: "Rename clients to customers."': '  locale: "en"'}),
        CASE,
        4,
        "input.user_prompt",
        "required field is missing",
    ),
    Bad(
        "empty-user-prompt",
        case_text(**{'"Rename clients to customers."': '""'}),
        CASE,
        4,
        "input.user_prompt",
        "must not be empty",
    ),
    Bad(
        "missing-assert",
        case_text(**{"assert:": "other:"}),
        CASE,
        1,
        "assert",
        "required field is missing",
    ),
    # A misspelt required key: the typo at its own line, not the missing key at the mapping's.
    Bad(
        "misspelt-assert",
        case_text(**{"assert:": "asserts:"}),
        CASE,
        5,
        "asserts",
        "unknown field 'asserts' (did you mean 'assert'?): 'assert' is required",
    ),
    Bad(
        "misspelt-user-prompt",
        case_text(**{"  user_prompt:": "  user_promt:"}),
        CASE,
        4,
        "input.user_promt",
        "unknown field 'user_promt' (did you mean 'user_prompt'?): 'user_prompt' is required",
    ),
    Bad(
        "misspelt-target-id",
        lambda r: replace_in(r, TARGET, "target_id:", "targt_id:"),
        TARGET,
        1,
        "targt_id",
        "unknown field 'targt_id' (did you mean 'target_id'?): 'target_id' is required",
    ),
    Bad(
        "entry-without-description",
        case_text(
            **{
                '    - description: "The rename reference was consulted."\n      checks:': "    - checks:"
            }
        ),
        CASE,
        7,
        "assert.required[0].description",
        "required field is missing",
    ),
    Bad(
        "required-is-string",
        case_text(
            **{
                'required:\n    - description: "The rename reference was consulted."\n      checks:\n'
                '        - kind: file_read\n          path: "references/rename-table.md"\n': 'required: "all of it"\n'
            }
        ),
        CASE,
        6,
        "assert.required",
        "expected array, got a string",
    ),
    Bad(
        "check-unknown-kind",
        case_text(**{"kind: file_read": "kind: file_sniffed"}),
        CASE,
        9,
        "assert.required[0].checks[0].kind",
        "file_sniffed",
    ),
    Bad(
        "check-unknown-field",
        case_text(
            **{
                'path: "references/rename-table.md"': 'path: "references/rename-table.md"\n          colour: red'
            }
        ),
        CASE,
        11,
        "assert.required[0].checks[0].colour",
        "unknown field 'colour'",
    ),
    Bad(
        "duplicate-yaml-key",
        case_text(**{'title: "Renaming': 'case_id: "again"\ntitle: "Renaming'}),
        CASE,
        2,
        "case_id",
        "duplicate key",
    ),
    Bad(
        "duplicate-case-id",
        _dup_case,
        f"{T}/cases/routing/routing-backfill.yaml",
        1,
        "case_id",
        "duplicate case id",
    ),
    Bad(
        "suite-missing-file",
        lambda r: replace_in(r, SUITE, "routing-backfill.yaml", "nope.yaml"),
        SUITE,
        6,
        "cases[2]",
        "case file not found",
    ),
    Bad(
        "suite-path-escapes",
        lambda r: replace_in(
            r,
            SUITE,
            '"targets/db-migrations/cases/routing/routing-backfill.yaml"',
            '"../outside.yaml"',
        ),
        SUITE,
        6,
        "cases[2]",
        "escapes the eval repo",
    ),
    Bad(
        "suite-case-other-target",
        lambda r: (
            write(
                r,
                "targets/other/target.yaml",
                'target_id: "other"\nentry_skill: ".agents/skills/db-migrations/SKILL.md"\n'
                "default_suites: []\n",
            ),
            write(r, "targets/other/cases/x/suite.yaml", 'suite_id: "x"\ncases: []\n'),
            write(
                r, "targets/other/cases/x/c.yaml", GOOD_CASE.replace("routing-rename-table", "c")
            ),
            replace_in(
                r, SUITE, f"{T}/cases/routing/routing-backfill.yaml", "targets/other/cases/x/c.yaml"
            ),
        ),
        SUITE,
        6,
        "cases[2]",
        "outside its target",
    ),
    Bad(
        "suite-absolute-path",
        lambda r: replace_in(
            r, SUITE, '"targets/db-migrations/cases/routing/routing-backfill.yaml"', '"/etc/passwd"'
        ),
        SUITE,
        6,
        "cases[2]",
        "must be relative",
    ),
    Bad(
        "suite-cases-not-list",
        lambda r: write(r, SUITE, 'suite_id: "routing"\ncases: "all"\n'),
        SUITE,
        2,
        "cases",
        "expected array, got a string",
    ),
    Bad(
        "entry-skill-absolute",
        lambda r: replace_in(
            r, TARGET, '".agents/skills/db-migrations/SKILL.md"', '"/root/SKILL.md"'
        ),
        TARGET,
        3,
        "entry_skill",
        "must be a relative path",
    ),
    Bad(
        "root-escapes",
        lambda r: replace_in(r, TARGET, '".agents/skills/db-migrations/scripts"', '"../../etc"'),
        TARGET,
        6,
        "roots[1]",
        "must not contain '..'",
    ),
    Bad(
        "status-not-allowed",
        lambda r: replace_in(
            r,
            TARGET,
            'allowed_statuses: ["pass", "fail", "blocked"]',
            'allowed_statuses: ["pass", "skipped"]',
        ),
        TARGET,
        18,
        "allowed_statuses[1]",
        "must be one of pass, fail, blocked",
    ),
    Bad(
        "target-is-list",
        lambda r: write(r, TARGET, "- a\n- b\n"),
        TARGET,
        1,
        None,
        "expected a mapping",
    ),
    Bad(
        "default-suite-missing",
        lambda r: replace_in(
            r, TARGET, '"bootstrap", "routing", "workflow"]', '"bootstrap", "routing", "perf"]'
        ),
        TARGET,
        7,
        "default_suites[2]",
        "suite 'perf' not found",
    ),
    Bad("non-utf8", _non_utf8, CASE, 2, None, "not valid UTF-8"),
    Bad("empty-file", lambda r: write(r, CASE, ""), CASE, 1, None, "file is empty"),
    Bad(
        "comment-only-file", lambda r: write(r, CASE, "# nothing\n"), CASE, 1, None, "file is empty"
    ),
    Bad("directory-for-file", _dir_for_file, CASE, None, None, "is a directory"),
    Bad(
        "write-file-escapes",
        case_text(**{"assert:": 'setup:\n  write_files:\n    - path: "../x"\nassert:'}),
        CASE,
        7,
        "setup.write_files[0].path",
        "must not contain '..'",
    ),
    Bad(
        "fixture-missing",
        case_text(
            **{
                "assert:": "setup:\n  copy_fixtures:\n"
                '    - {source: "nope.sql", target: "a.sql"}\n'
                "assert:"
            }
        ),
        CASE,
        7,
        "setup.copy_fixtures[0].source",
        "fixture not found",
    ),
    Bad(
        "attempts-zero",
        case_text(**{"assert:": "attempts: 0\nassert:"}),
        CASE,
        5,
        "attempts",
        "out of range",
    ),
    Bad("skill-missing", _no_skill, TARGET, 3, "entry_skill", "skill file not found"),
    Bad(
        "unknown-default-target",
        lambda r: write(r, "agentic-eval.yaml", "default_target: nope\n"),
        "agentic-eval.yaml",
        None,
        "default_target",
        "does not exist",
    ),
    Bad(
        "repo-config-unknown-key",
        lambda r: write(r, "agentic-eval.yaml", "defalt_target: x\n"),
        "agentic-eval.yaml",
        1,
        None,
        "defalt_target",
    ),
    Bad(
        "assert-forbiden-typo",
        case_text(**{"assert:\n": "assert:\n  forbiden: []\n"}),
        CASE,
        6,
        "assert.forbiden",
        "unknown field 'forbiden' (did you mean 'forbidden'?)",
    ),
    Bad(
        "entry-chekcs-typo",
        case_text(**{"      checks:": "      chekcs:"}),
        CASE,
        8,
        "assert.required[0].chekcs",
        "(did you mean 'checks'?)",
    ),
    Bad(
        "setup-copy-fixture-typo",
        case_text(**{"assert:": "setup:\n  copy_fixture: []\nassert:"}),
        CASE,
        6,
        "setup.copy_fixture",
        "(did you mean 'copy_fixtures'?): this evaluator cannot apply that setup",
    ),
    Bad(
        "setup-network-online",
        case_text(**{"assert:": "setup:\n  network_mode: online\nassert:"}),
        CASE,
        6,
        "setup.network_mode",
        "cannot be honoured",
    ),
    Bad(
        "setup-fetch-must-work",
        case_text(**{"assert:": "setup:\n  force_fetch_failure: false\nassert:"}),
        CASE,
        6,
        "setup.force_fetch_failure",
        "cannot be honoured",
    ),
    Bad(
        "file-read-path-matches-nothing",
        case_text(**{"references/rename-table.md": "references/rename-tabel.md"}),
        CASE,
        10,
        "assert.required[0].checks[0].path",
        "matches no file the workspace can contain",
    ),
    Bad(
        "read-before-then-glob-typo",
        case_text(
            **{
                '- kind: file_read\n          path: "references/rename-table.md"': (
                    '- {kind: read_before, first: "references/docs.txt", then: "reference/*.md"}'
                )
            }
        ),
        CASE,
        9,
        "assert.required[0].checks[0].then",
        "'reference/*.md' matches no file",
    ),
    Bad(
        "forbidden-glob-typo",
        lambda r: replace_in(
            r,
            f"{T}/cases/routing/routing-add-column.yaml",
            'path: ".agents/skills/db-migrations/references/rename-table.md"',
            'path: ".agents/skills/db-migrations/references/rename_table.md"',
        ),
        f"{T}/cases/routing/routing-add-column.yaml",
        24,
        "assert.forbidden[0].checks[0].path",
        "matches no file",
    ),
    Bad(
        "regex-does-not-compile",
        case_text(
            **{
                '- kind: file_read\n          path: "references/rename-table.md"': (
                    '- {kind: command_ran, pattern: "new_migration(.py"}'
                )
            }
        ),
        CASE,
        9,
        "assert.required[0].checks[0].pattern",
        "invalid regular expression",
    ),
    Bad(
        "regex-inside-any-of",
        case_text(
            **{
                '- kind: file_read\n          path: "references/rename-table.md"': (
                    '- any_of: [{kind: command_ran, pattern: "ls"},'
                    ' {kind: command_ran, pattern: "new_migration(.py"}]'
                )
            }
        ),
        CASE,
        9,
        "assert.required[0].checks[0].any_of[1].pattern",
        "invalid regular expression",
    ),
    Bad(
        "regex-of-ran-before-under-not",
        case_text(
            **{
                '- kind: file_read\n          path: "references/rename-table.md"': (
                    '- not: {kind: ran_before, first: "lint", then: "deploy(("}'
                )
            }
        ),
        CASE,
        9,
        "assert.required[0].checks[0].not.then",
        "invalid regular expression",
    ),
    Bad(
        "regex-of-script-ran-command",
        case_text(
            **{
                '- kind: file_read\n          path: "references/rename-table.md"': (
                    '- {kind: script_ran, path: "x.py", command: "x\\\\.py [", without: "--y"}'
                )
            }
        ),
        CASE,
        9,
        "assert.required[0].checks[0].command",
        "invalid regular expression",
    ),
    Bad(
        "regex-needs-backtracking",
        case_text(
            **{
                '- kind: file_read\n          path: "references/rename-table.md"': (
                    "- {kind: final_answer_matches, pattern: '(a)\\1'}"
                )
            }
        ),
        CASE,
        9,
        "assert.required[0].checks[0].pattern",
        "invalid regular expression",
    ),
    Bad(
        "case-id-dot-dot-slash",
        case_text(**{'case_id: "routing-rename-table"': 'case_id: "../../escape"'}),
        CASE,
        1,
        "case_id",
        "is not a valid id",
    ),
    Bad(
        "case-id-dot-dot",
        case_text(**{'case_id: "routing-rename-table"': 'case_id: ".."'}),
        CASE,
        1,
        "case_id",
        "is not a valid id",
    ),
    Bad(
        "case-id-slash",
        case_text(**{'case_id: "routing-rename-table"': 'case_id: "routing/rename"'}),
        CASE,
        1,
        "case_id",
        "is not a valid id",
    ),
    Bad(
        "case-id-newline",
        case_text(**{'case_id: "routing-rename-table"': 'case_id: "routing\\nrename"'}),
        CASE,
        1,
        "case_id",
        "is not a valid id",
    ),
    Bad(
        "suite-id-slash",
        lambda r: replace_in(r, SUITE, 'suite_id: "routing"', 'suite_id: "a/b"'),
        SUITE,
        1,
        "suite_id",
        "is not a valid id",
    ),
    Bad(
        "target-id-not-directory",
        _target_dir_renamed,
        TARGET,
        1,
        "target_id",
        "differs from its directory name",
    ),
    Bad("entry-skill-symlink", _symlinked_entry_skill, TARGET, 3, "entry_skill", "symlink"),
    Bad("symlink-in-skill-root", _symlink_in_root, TARGET, 5, "roots[0]", "symlink"),
    Bad(
        "fixtures-root-outside",
        lambda r: replace_in(
            r, TARGET, 'suite_root: "cases"', 'suite_root: "cases"\nfixtures_root: "/etc"'
        ),
        TARGET,
        9,
        "fixtures_root",
        "must be a relative path",
    ),
    Bad(
        "docs-index-escapes",
        lambda r: replace_in(
            r,
            TARGET,
            'docs_index: ".agents/skills/db-migrations/references/docs.txt"',
            'docs_index: "../../etc/passwd"',
        ),
        TARGET,
        9,
        "docs_index",
        "must not contain '..'",
    ),
    Bad(
        "fixture-is-symlink",
        _symlinked_fixture,
        CASE,
        7,
        "setup.copy_fixtures[0].source",
        "is a symlink",
    ),
    Bad("yaml-alias-bomb", _alias_bomb, CASE, None, None, "through aliases"),
    Bad(
        "yaml-recursive-alias",
        lambda r: write(r, CASE, "a: &a [*a]\n"),
        CASE,
        1,
        None,
        "recursive alias",
    ),
    Bad("yaml-deep-nesting", _deep_nesting, CASE, 1, None, "nesting deeper than 64"),
    Bad("yaml-many-aliases", _many_aliases, CASE, None, None, "more than 1000 aliases"),
    Bad(
        "repo-config-behaviors",
        lambda r: write(r, "agentic-eval.yaml", "behaviors: targets/db-migrations/behaviors\n"),
        "agentic-eval.yaml",
        1,
        "behaviors",
        "pass `run --behaviors DIR`",
    ),
]


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 55
    assert len({bad.name for bad in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("bad", CORPUS, ids=[b.name for b in CORPUS])
def test_bad_input_yields_one_located_line(
    bad: Bad, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    bad.mutate(repo)
    code, out, err = run_cli(["validate", "--repo", str(repo)], capsys)
    assert code == 2, err
    assert "Traceback" not in out + err
    errors = [line for line in err.splitlines() if not line.startswith("warning:")]
    assert errors, err
    target_file = str((repo / bad.file).resolve()) if bad.file else ""
    matching = [line for line in errors if line.startswith(target_file)]
    assert matching, f"no error for {bad.file}: {err}"
    line = matching[0]
    if bad.line is not None:
        assert line.startswith(f"{target_file}:{bad.line}:"), line
    if bad.field is not None:
        assert f" {bad.field}:" in line, line
    assert bad.message in line, line


def test_a_default_target_that_does_not_load_gives_only_its_own_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The default target exists; its file is wrong. Saying it "does not exist" as well would
    send the author looking for a problem that is not there."""
    repo = copy_demo(tmp_path)
    replace_in(repo, TARGET, "  attempts: 1", "  attempts: 0")
    code, _, err = run_cli(["validate", "--repo", str(repo)], capsys)
    assert code == 2
    assert err.splitlines() == [
        f"{(repo / TARGET).resolve()}:21:13: defaults.attempts: 0 is out of range (minimum 1)"
    ]
    code, _, err = run_cli(["list", "--repo", str(repo)], capsys)
    assert code == 2 and "more problem" not in err, err


def test_demo_repo_validates(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["validate", "--repo", str(ROOT / "agentic-evals")], capsys)
    assert code == 0, err
    assert "2 target(s), 13 case(s)" in out


def test_upstream_layout_validates_without_edits(capsys: pytest.CaptureFixture[str]) -> None:
    repo = ROOT / "tests/fixtures/upstream/agentic-evals"
    code, out, err = run_cli(["validate", "--repo", str(repo), "--json"], capsys)
    assert code == 0, err
    report = json.loads(out)
    assert report["ok"] is True
    assert report["targets"] == ["voice-ai-integration"]
    assert report["cases"] == 2
    assert report["errors"] == []


def test_unknown_key_is_an_error_and_lenient_makes_it_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    replace_in(
        repo, CASE, 'case_id: "routing-rename-table"', 'case_id: "routing-rename-table"\nowner: qa'
    )
    code, _, err = run_cli(["validate", "--repo", str(repo)], capsys)
    assert code == 2
    assert f"{(repo / CASE).resolve()}:2:1: owner: unknown field 'owner'" in err
    code, _, err = run_cli(["validate", "--repo", str(repo), "--lenient"], capsys)
    assert code == 0
    assert f"warning: {(repo / CASE).resolve()}:2:1: owner: unknown field 'owner'" in err
    assert "ignored (--lenient)" in err


def test_validate_in_a_subprocess_prints_no_traceback(tmp_path: Path) -> None:
    repo = copy_demo(tmp_path)
    write(repo, CASE, "case_id: [\n")
    proc = subprocess.run(
        [sys.executable, "-m", "evaluator", "validate", "--repo", str(repo)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"{(repo / CASE).resolve()}:2:1: invalid YAML")


def test_list_json_resolves_default_target_and_suites(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["list", "--repo", str(ROOT / "agentic-evals"), "--json"], capsys)
    assert code == 0
    listing = json.loads(out)
    assert listing["target"] == "db-migrations"
    assert listing["selected_suites"] == ["bootstrap", "routing", "workflow"]
    assert len(listing["cases"]) == 10
    code, out, _ = run_cli(
        ["list", "--repo", str(ROOT / "agentic-evals"), "--suite", "routing", "--json"], capsys
    )
    assert [c["suite_id"] for c in json.loads(out)["cases"]] == ["routing"] * 3


def test_list_unknown_suite_is_an_input_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(
        ["list", "--repo", str(ROOT / "agentic-evals"), "--suite", "perf"], capsys
    )
    assert code == 2
    assert "unknown suite 'perf'" in err
