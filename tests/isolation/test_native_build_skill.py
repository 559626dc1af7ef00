"""A skill that builds a C program and looks at the binary, the shape of round 12's
`ghidra-headless` (`tektite-io/skills-curated`, docs/real-repos.md) where Ghidra is absent: `gcc
-O0 -g -o app app.c`, then `nm` and `strings` into `analysis/`. On `main` neither `gcc` nor `nm`
was modelled: with the jail and the trace the trace vouched for the calls, without them the
attempt was `unverifiable` and the pass `blocked`.

Our own skill and source; the real Claude Code, without the jail and the trace (the session
layer alone) and with the default layers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import agent_or_skip, assert_contained_pass, layers_or_skip, run_scripted

NAME = "bin-inspect"
PROMPT = "Build app.c and list the binary's functions and strings into analysis/ (bin-inspect)."
SOURCE = (
    "#include <stdio.h>\n#include <string.h>\n\nint check_pin(const char *p) {\n"
    '    return strcmp(p, "0451") == 0;\n}\n\nint main(int argc, char **argv) {\n'
    '    puts(argc > 1 && check_pin(argv[1]) ? "open" : "closed");\n    return 0;\n}\n'
)


def _evals(root: Path) -> Path:
    skill = root / NAME
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Builds a C program and lists the functions and"
        " strings of the binary. Use to triage a small native program.\n---\n\n# Inspect a"
        " binary\n\n1. `gcc -O0 -g -o app app.c`.\n2. `nm --defined-only app` for the"
        " functions, `strings -n 4 app` for the strings, saved under `analysis/`.\n"
    )
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "analysis/functions.txt names check_pin.",
                "files": [{"path": "app.c", "content": SOURCE}],
                "assertions": [
                    {
                        "type": "command",
                        "command": "grep -qx check_pin analysis/functions.txt"
                        " && grep -q 0451 analysis/strings.txt",
                        "expect_exit_code": 0,
                    }
                ],
            }
        ],
    }
    path = skill / "evals/evals.json"
    path.write_text(json.dumps(evals))
    return path


STEPS = [
    {"skill": NAME},
    {"cmd": "gcc -O0 -g -o app app.c && mkdir -p analysis"},
    {
        "cmd": "nm --defined-only app | awk '$2 == \"T\" {print $3}' | sort > analysis/functions.txt"
        " && strings -n 4 app > analysis/strings.txt && cat analysis/functions.txt"
    },
    {
        "when": {"output_contains": "check_pin"},
        "then": [{"final": "Built app; functions in analysis/functions.txt (check_pin, main)."}],
    },
    {"final": "The binary could not be inspected."},
]


@pytest.mark.claude
@pytest.mark.parametrize("layers", ["session-only", "default"])
def test_building_and_reading_a_binary_is_contained(tmp_path: Path, layers: str) -> None:
    """On `main`: session-only `blocked` (unverifiable: `gcc` and `nm` not modelled)."""
    runner = agent_or_skip("claude")
    if layers == "default":
        layers_or_skip(trace=True, jail=True)
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    (behaviors / "inspect.yaml").write_text(
        json.dumps({"name": "inspect", "match": {"prompt_contains": "bin-inspect"}, "steps": STEPS})
    )
    options = {"sandbox": "none", "trace": "off"} if layers == "session-only" else {}
    outcome = run_scripted(
        _evals(tmp_path / "src"), behaviors, tmp_path / "runs", agent=runner, **options
    )
    assert_contained_pass(outcome, traced=layers == "default")
