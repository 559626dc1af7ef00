"""A time or a rate must be a finite number (the ninth new user's review): `timeout_s: .inf`
passed `validate`, and it or `--timeout inf` then blocked every attempt with "the evaluator
could not run this attempt: OverflowError", and the run said the agent's tooling had failed
(exit 3). `nan` passes every comparison of a range check, so it got through as well."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.cli.main import run_cli
from tests.conftest import copy_demo

CASE = "targets/db-migrations/cases/routing/routing-add-column.yaml"


@pytest.mark.parametrize("value", [".inf", ".nan", ".Inf"])
def test_a_case_timeout_that_is_not_finite_is_refused_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    repo = copy_demo(tmp_path)
    path = repo / CASE
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines, f"timeout_s: {value}"]) + "\n")
    assert run_cli(["validate", "--repo", str(repo), "--target", "db-migrations"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{len(lines) + 1}:12: timeout_s: Input should be a finite number" in err


def test_a_finite_case_timeout_is_still_taken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    path = repo / CASE
    path.write_text(path.read_text() + "timeout_s: 1000000\n")
    assert run_cli(["validate", "--repo", str(repo), "--target", "db-migrations"]) == 0


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["run", "--timeout", "inf"], "--timeout"),
        (["run", "--timeout", "nan"], "--timeout"),
        (["selftest", "--timeout", "inf"], "--timeout"),
        (["compare", "--alpha", "nan", ".", "."], "--alpha"),
        (["score", "--min-pass-rate", "nan"], "--min-pass-rate"),
    ],
)
def test_an_option_that_is_not_finite_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], args: list[str], option: str
) -> None:
    assert run_cli(args) == 2
    err = capsys.readouterr().err
    assert f"Invalid value for '{option}'" in err and "is not a finite number" in err
