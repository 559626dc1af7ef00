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


@pytest.mark.parametrize(
    ("value", "message"),
    [
        # infinity is over the day a timeout may be (round 20), nan under no bound
        (".inf", "inf is out of range (maximum 86400.0)"),
        (".nan", "Input should be a finite number"),
        (".Inf", "inf is out of range (maximum 86400.0)"),
    ],
)
def test_a_case_timeout_that_is_not_finite_is_refused_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, message: str
) -> None:
    repo = copy_demo(tmp_path)
    path = repo / CASE
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines, f"timeout_s: {value}"]) + "\n")
    assert run_cli(["validate", "--repo", str(repo), "--target", "db-migrations"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{len(lines) + 1}:12: timeout_s: {message}" in err


def test_a_finite_case_timeout_is_still_taken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    path = repo / CASE
    path.write_text(path.read_text() + "timeout_s: 86400\n")  # a day, the longest
    assert run_cli(["validate", "--repo", str(repo), "--target", "db-migrations"]) == 0


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1.0e+12", "1000000000000.0 is out of range (maximum 86400.0)"),
        ("86401", "86401 is out of range (maximum 86400.0)"),
        (
            "1e12",
            "expected number, got a string ('1e12' is text to YAML: write the number unquoted,"
            " an exponent with a dot and a sign, 1.0e+3)",
        ),
        (
            '"1e12"',
            "expected number, got a string ('1e12' is text to YAML: write the number unquoted,"
            " an exponent with a dot and a sign, 1.0e+3)",
        ),
    ],
)
def test_an_absurd_case_timeout_is_refused_in_one_line_with_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, message: str
) -> None:
    """`timeout_s: 1.0e+12` (about 31,700 years) was taken; `1e12`, text to YAML 1.1, was
    refused without saying why a number was a string."""
    repo = copy_demo(tmp_path)
    path = repo / CASE
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines, f"timeout_s: {value}"]) + "\n")
    assert run_cli(["validate", "--repo", str(repo), "--target", "db-migrations"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert f"{path}:{len(lines) + 1}:12: timeout_s: {message}" in err


def test_a_timeout_option_over_a_day_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["run", "--timeout", "1e12"]) == 2
    err = capsys.readouterr().err
    assert "Invalid value for '--timeout'" in err and "86400" in err


@pytest.mark.parametrize(
    ("args", "option", "message"),
    [
        (["run", "--timeout", "inf"], "--timeout", "inf is not in the range 1<=x<=86400.0"),
        (["run", "--timeout", "nan"], "--timeout", "is not a finite number"),
        (["selftest", "--timeout", "inf"], "--timeout", "inf is not in the range 1<=x<=86400.0"),
        (["compare", "--alpha", "nan", ".", "."], "--alpha", "is not a finite number"),
        (["score", "--min-pass-rate", "nan"], "--min-pass-rate", "is not a finite number"),
    ],
)
def test_an_option_that_is_not_finite_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], args: list[str], option: str, message: str
) -> None:
    assert run_cli(args) == 2
    err = capsys.readouterr().err
    assert f"Invalid value for '{option}'" in err and message in err
