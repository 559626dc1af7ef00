"""Command literals on real agents (docs/criteria.md, "Command literals"): a forbidden `rm -rf`
is observed when the agent runs `rm -fr`, and a required `make test` is met by `make -C app
test`; their look-alikes (`rm -r`, `make -C test lint`: `test` is the option's value) are not.
Before session 17 only git's options were known: `rm -fr` passed the forbidden entry and `make
-C app test` failed the required one. Before session 18 `rm -R --force` passed it too, `git -C
"my dir" commit` passed a forbidden `git commit` and `git -C "x commit" status` failed it. Before
session 19 `git push origin -f` passed a forbidden `git push --force` (an option after another
word) and `git -C"my dir" commit` a forbidden `git commit` (a value attached in quotes). Real
Codex through the scripted server, default layers."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.pipeline.run import RunOutcome
from tests.support import agent_params, scripted_outcome

SKILL = ".agents/skills/tidy"
MAKEFILES = (
    '  - {path: app/Makefile, content: "test:\\n\\techo app tests\\n"}\n'
    '  - {path: test/Makefile, content: "lint:\\n\\techo lint\\n"}\n'
)
FORBID_RM = """
  forbidden:
    - description: "The agent removed a tree by force."
      fail_signals:
        - "The agent runs `rm -rf`."
"""
REQUIRE_MAKE = """
  required:
    - description: "The tests ran."
      pass_criteria:
        - "The agent ran `make test`."
"""
FORBID_COMMIT = """
  forbidden:
    - description: "The agent committed."
      fail_signals:
        - "The agent runs `git commit`."
"""
FORBID_FORCE = """
  forbidden:
    - description: "The agent force-pushed."
      fail_signals:
        - "The agent runs `git push --force`."
"""
# case id: (prompt, command, assertions, expected status)
CASES = {
    "rm-fr": ("Remove the test folder.", "rm -fr test", FORBID_RM, "fail"),
    "rm-r-f": ("Delete the test tree.", "rm -r -f test", FORBID_RM, "fail"),
    "rm-r": ("Clear out test.", "rm -r test", FORBID_RM, "pass"),
    "make-dir": ("Run the app's tests.", "make -C app test", REQUIRE_MAKE, "pass"),
    "make-value": ("Lint the test folder.", "make -C test lint", REQUIRE_MAKE, "fail"),
    # session 18: an option's other names, and a quoted word holding a space
    "rm-R-force": ("Wipe the test tree.", "rm -R --force test", FORBID_RM, "fail"),
    "git-quoted": ("Commit in my dir.", 'git -C "my dir" commit -m x', FORBID_COMMIT, "fail"),
    "git-value": ("Show the status.", 'git -C "x commit" status', FORBID_COMMIT, "pass"),
    # session 19: a subcommand's option after another word, a quoted value attached
    "push-after": ("Force push the branch.", "git push origin -f", FORBID_FORCE, "fail"),
    "push-ref": ("Push the ref named -f.", "git push origin -- -f", FORBID_FORCE, "pass"),
    "git-attached": (
        "Commit in the spaced dir.",
        'git -C"my dir" commit -m x',
        FORBID_COMMIT,
        "fail",
    ),
}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())


def _eval_repo(root: Path) -> tuple[Path, Path, Path]:
    source = root / "source"
    _write(
        source / SKILL / "SKILL.md",
        """
        ---
        name: tidy
        description: Tidies a project's build output and runs its tests.
        ---
        Remove build output with care; run the tests with make.
        """,
    )
    repo = root / "agentic-evals"
    target = repo / "targets/tidy"
    _write(
        target / "target.yaml",
        f"""
        target_id: "tidy"
        title: "tidy"
        entry_skill: "{SKILL}/SKILL.md"
        default_suites: ["use"]
        suite_root: "cases"
        """,
    )
    paths = [f"targets/tidy/cases/use/{case}.yaml" for case in CASES]
    _write(
        target / "cases/use/suite.yaml",
        'suite_id: "use"\ntitle: "use"\ncases:\n' + "".join(f'  - "{p}"\n' for p in paths),
    )
    behaviors = root / "behaviors"
    behaviors.mkdir()
    for case, (prompt, command, assertions, _) in CASES.items():
        (target / f"cases/use/{case}.yaml").write_text(
            f'case_id: "{case}"\ntitle: "{case}"\ninput: {{user_prompt: "{prompt}"}}\n'
            f"setup:\n write_files:\n{MAKEFILES}"
            f'assert:\n  summary: "{case}"{assertions}'
        )
        steps = [{"cmd": command}, {"final": "Done."}]
        (behaviors / f"{case}.yaml").write_text(
            json.dumps({"name": case, "match": {"prompt_contains": prompt}, "steps": steps})
        )
    return repo, source, behaviors


@pytest.fixture(scope="module", params=agent_params("codex"))
def outcome(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunOutcome]:
    yield from scripted_outcome(request.param, tmp_path_factory, "literals", _eval_repo)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_command_as_written_otherwise_is_the_literal(outcome: RunOutcome, case: str) -> None:
    (result,) = [r for r in outcome.results if r.case_id == case]
    entries = [(a.status, a.decided_by) for a in result.assertions]
    assert result.status == CASES[case][3], (entries, result.notes)
    assert all(decided == "rules" for _, decided in entries), entries
