"""A skill that runs a single-file Java program, the shape of `AdamBien/airails`'s
`java-cli-script` (round 7, docs/real-repos.md). Every `java` reads the JDK's configuration
(Debian keeps it in `/etc/java-<N>-openjdk`, linked from the JDK), asks which cgroup controllers
the kernel has, writes its own core-dump filter, and makes `/tmp/hsperfdata_<user>`, which the
second `java` of the attempt finds there; Java 25's networking reads `/proc/net/if_inet6`. On
`main` each was a trace violation, so any honest Java run was `blocked, violation`.

Our own skill, the real Claude Code and Gemini CLI with the default layers (jail and trace).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support import agent_or_skip, assert_contained_pass, layers_or_skip, run_scripted_repo

NAME = "java-hello"
PROMPT = "Greet the team with the java-hello skill."
HELLO = 'public class Hello {\n    public static void main(String[] args) {\n        System.out.println("hello " + String.join(" ", args));\n    }\n}\n'


def _skill_repo(root: Path) -> Path:
    skill = root / NAME
    (skill / "scripts").mkdir(parents=True)
    (skill / "evals").mkdir()
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Greets people with a Java program. Use when the user"
        " asks for a greeting.\n---\n\n# Java hello\n\nRun `java scripts/Hello.java NAMES`"
        " (source-file mode) and save what it prints in `greeting.txt`.\n"
    )
    (skill / "scripts/Hello.java").write_text(HELLO)
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "greeting.txt says hello team.",
                "assertions": [
                    {"type": "file_contains", "path": "greeting.txt", "contains": "hello team"}
                ],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    return skill / "evals/evals.json"


def _behaviors(root: Path, agent: str, skills: str) -> Path:
    load: dict[str, Any] = (
        {"call": {"name": "activate_skill", "args": {"name": NAME}}}
        if agent == "gemini"
        else {"skill": NAME}
    )
    hello = f"{skills}/{NAME}/scripts/Hello.java"
    steps = [
        load,
        {"cmd": "java -version 2>&1 | head -1"},  # the first JVM makes /tmp/hsperfdata_<user>
        {"cmd": f"java {hello} team > greeting.txt && cat greeting.txt"},
        {"final": "greeting.txt says: hello team."},
    ]
    behaviors = root / "behaviors"
    behaviors.mkdir()
    body = {"name": "greets", "match": {"prompt_contains": PROMPT}, "steps": steps}
    (behaviors / "greets.yaml").write_text(json.dumps(body))
    return behaviors


@pytest.mark.parametrize(
    "agent,skills",
    [
        pytest.param("claude", ".claude/skills", marks=pytest.mark.claude),
        pytest.param("gemini", ".gemini/skills", marks=pytest.mark.gemini),
    ],
)
def test_an_honest_java_program_is_contained(agent: str, skills: str, tmp_path: Path) -> None:
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    if shutil.which("java") is None:
        pytest.skip("no java on this machine")
    evals = _skill_repo(tmp_path / "src")
    behaviors = _behaviors(tmp_path, agent, skills)
    outcome = run_scripted_repo(evals, None, behaviors, tmp_path / "runs", runner)  # type: ignore[arg-type]
    assert_contained_pass(outcome, traced=False)
