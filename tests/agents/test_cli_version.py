"""The version an agent CLI reports is kept once known, and asked again after a failed probe."""

from __future__ import annotations

from pathlib import Path

from evaluator.agents.npm_cli import cli_version, forget_cli_versions


def test_a_failed_version_probe_is_tried_again(tmp_path: Path) -> None:
    # The first probe prints nothing (as a CLI killed at the timeout would), the next ones the
    # version; before, the first answer (None) was kept for the whole process.
    marker = tmp_path / "asked"
    binary = tmp_path / "agent-cli"
    binary.write_text(
        f'#!/bin/sh\nif [ -e "{marker}" ]; then echo "agent-cli 1.2.3"; else : > "{marker}"; fi\n'
    )
    binary.chmod(0o755)
    forget_cli_versions()
    assert cli_version(binary) is None
    assert cli_version(binary) == "1.2.3"
    marker.unlink()  # the version is kept: the CLI is not asked again
    assert cli_version(binary) == "1.2.3"
