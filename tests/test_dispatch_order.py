"""The order in which `./dev test` hands test files to its two workers (tests/conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.conftest import longest_files_first


@dataclass
class StubItem:
    """What the ordering reads of a collected test: its node id and its `minutes` mark."""

    nodeid: str
    minutes: float | None = None

    def get_closest_marker(self, name: str) -> pytest.Mark | None:
        if name != "minutes" or self.minutes is None:
            return None
        return pytest.mark.minutes(self.minutes).mark


def test_files_taking_minutes_go_first_longest_first_then_the_files_with_most_tests() -> None:
    items = [
        StubItem("tests/test_a.py::one"),
        StubItem("tests/test_b.py::one"),
        StubItem("tests/test_b.py::two"),
        StubItem("tests/test_c.py::one", minutes=2),
        StubItem("tests/test_d.py::one", minutes=1),
        StubItem("tests/test_d.py::two", minutes=2),
        StubItem("tests/test_e.py::one"),
    ]
    longest_files_first(items)  # type: ignore[arg-type]
    assert [item.nodeid for item in items] == [
        # d's marks add up to 3 minutes, c's to 2; a file's tests keep their order
        "tests/test_d.py::one",
        "tests/test_d.py::two",
        "tests/test_c.py::one",
        # then as xdist would order them: most tests first, ties in collection order
        "tests/test_b.py::one",
        "tests/test_b.py::two",
        "tests/test_a.py::one",
        "tests/test_e.py::one",
    ]
