"""A case's `needs`, looked up where its agent will run: in the attempt's own jail, with the
agent's `PATH` and a fresh home, before the agent starts. Nothing is run but the lookup
(`command -v`) and, for Python distributions, the agent's `python3` reading its installed
metadata: a program that is present but fails is not missing, and is the agent's to meet."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version

from evaluator.agents.process import run_process
from evaluator.contract.models import Needs, python_requirement
from evaluator.sandbox import LaunchPolicy
from evaluator.sandbox.base import JailSpec
from evaluator.sandbox.launch import path_tools
from evaluator.sandbox.registry import get_jail

SHELL = "/bin/sh"
PROBE_TIMEOUT_S = 60.0
PYTHON = "python3"
# Prints one JSON object: each distribution named on the command line -> its installed version,
# or null; `python` (no distribution has that name) -> the interpreter's own version. Only
# metadata is read; no distribution is imported.
# The probe's working directory is the workspace, which `-c` would put on the path: a folder
# there is no installed distribution (the agent's scripts do not see it so either).
VERSIONS_PROGRAM = (
    "import importlib.metadata as m, json, platform, sys\n"
    "sys.path[:] = [p for p in sys.path if p]\n"
    "def version(name):\n"
    "    if name.lower() == 'python':\n"
    "        return platform.python_version()\n"
    "    try:\n"
    "        return m.version(name)\n"
    "    except m.PackageNotFoundError:\n"
    "        return None\n"
    "print(json.dumps({name: version(name) for name in sys.argv[1:]}))\n"
)
# `$1` is the number of programs, then the programs, then the distributions. One line per
# program (`found NAME` / `missing NAME`), then, when distributions are asked for, either
# `missing python3` or `versions {...}` (the program's output).
PROBE_SCRIPT = r"""
count=$1; shift
i=0
while [ "$i" -lt "$count" ]; do
  if command -v -- "$1" >/dev/null 2>&1; then echo "found $1"; else echo "missing $1"; fi
  shift; i=$((i + 1))
done
[ "$#" -eq 0 ] && exit 0
if ! command -v python3 >/dev/null 2>&1; then echo "missing python3"; exit 0; fi
printf 'versions '
exec python3 -c "$VERSIONS_PROGRAM" "$@"
"""


@dataclass
class NeedsCheck:
    """What the lookup found missing (each said as a reason), or why it could not tell."""

    missing: list[str] = field(default_factory=list)
    problem: str | None = None  # the lookup did not work: nothing is known, nothing blocks


def check_needs(
    needs: Needs, launch: LaunchPolicy, workspace: Path, agent_env: dict[str, str]
) -> NeedsCheck:
    """`agent_env`: the variables the case sets for its agent (its own `PATH`, if any)."""
    if not needs.programs and not needs.python:
        return NeedsCheck()
    names = [_distribution(text) for text in needs.python]
    with tempfile.TemporaryDirectory(prefix="agentic-eval-needs-") as scratch:
        home = Path(scratch) / "home"
        home.mkdir()
        path = agent_env.get("PATH") or os.environ.get("PATH", os.defpath)
        argv = [SHELL, "-c", PROBE_SCRIPT, "needs", str(len(needs.programs))]
        argv += [*needs.programs, *names]
        if launch.jail != "none":
            # As the agent's jail: installations on PATH under a hidden directory (pyenv,
            # ~/.local/bin) are bound back read-only; the workspace is only read.
            tools = path_tools(path, (*launch.hidden, Path.home()))
            spec = JailSpec(
                workspace=workspace,
                writable=(home,),
                hidden=launch.hidden,
                tools=(*tools, workspace),
            )
            argv = get_jail(launch.jail).wrap(argv, spec)
        env = {
            **{k: v for k, v in agent_env.items() if k not in ("HOME", "PATH")},
            "PATH": path,
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "VERSIONS_PROGRAM": VERSIONS_PROGRAM,
        }
        out, err = Path(scratch) / "out", Path(scratch) / "err"
        done = run_process(
            argv,
            cwd=workspace,
            env=env,
            stdin_text="",
            stdout_path=out,
            stderr_path=err,
            timeout_s=PROBE_TIMEOUT_S,
        )
        output = out.read_text(encoding="utf-8", errors="replace")
        errors = err.read_text(encoding="utf-8", errors="replace").strip()
    if done.error is not None or done.timed_out or done.exit_code != 0:
        why = done.error or ("timed out" if done.timed_out else f"exit {done.exit_code}")
        return NeedsCheck(problem=f"the lookup of the case's needs failed ({why}): {errors[-300:]}")
    return _read(needs, output)


def _distribution(text: str) -> str:
    return python_requirement(text).name


def _read(needs: Needs, output: str) -> NeedsCheck:
    check = NeedsCheck()
    versions: dict[str, str | None] | None = None
    for line in output.splitlines():
        word, _, rest = line.partition(" ")
        if word == "missing" and rest == PYTHON and needs.python:
            wanted = ", ".join(needs.python)
            check.missing.append(f"{PYTHON} is not on the agent's PATH (needed for {wanted})")
        elif word == "missing":
            check.missing.append(f"program {rest!r} is not on the agent's PATH")
        elif word == "versions":
            try:
                versions = json.loads(rest)
            except json.JSONDecodeError:
                return NeedsCheck(problem=f"unreadable versions from {PYTHON}: {rest[:200]}")
    if needs.python and versions is None and not any(PYTHON in m for m in check.missing):
        return NeedsCheck(problem=f"{PYTHON} printed no versions")
    for text in needs.python:
        if versions is None:
            break  # python3 is missing: said above
        requirement = python_requirement(text)
        found = versions.get(requirement.name)
        if found is None:
            check.missing.append(f"python {requirement.name!r} is not installed for {PYTHON}")
        elif not _satisfies(text, found) and _interpreter(requirement.name):
            check.missing.append(f"{PYTHON} is {found}, not {requirement.specifier}")
        elif not _satisfies(text, found):
            check.missing.append(
                f"python {requirement.name!r} is {found}, not {requirement.specifier}"
            )
    return check


def _interpreter(name: str) -> bool:
    """`python` in `needs.python` (`python>=3.11`): the version of the agent's `python3` itself."""
    return name.lower() == "python"


def _satisfies(text: str, version: str) -> bool:
    specifier = python_requirement(text).specifier
    try:
        return specifier.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False
