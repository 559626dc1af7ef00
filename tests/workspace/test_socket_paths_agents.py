"""The paths an agent is given are short whatever the case id (`workspace/naming.py`): a case id
of 100 characters, and the agent's scripted turn binds a Unix socket under `$TMPDIR` (a
`tempfile.mkdtemp()` there, as a tmux server, an ssh-agent or a language server makes one) and
under its working directory, the workspace. A socket's path holds at most 107 bytes, so the case
id alone made both fail (`OSError: AF_UNIX path too long`): the attempt failed for the length of
its case id. Real pinned CLIs under the default layers (jail and trace)."""

from __future__ import annotations

import json
import shlex
import textwrap
from pathlib import Path

import pytest

from evaluator.pipeline.run import RunOutcome
from tests.support import agent_or_skip, agent_params, layers_or_skip, run_scripted

CASE = "a-case-whose-id-is-long-" + "and-longer-" * 4 + "until-it-is-a-hundred-characters"
SKILL = ".agents/skills/sockets"
# Binds one socket in a fresh directory under $TMPDIR and one under the workspace (by their
# absolute paths, as servers do), and writes each path's length and what the bind gave.
BIND = (
    "import os, socket, tempfile; made = []\n"
    "for folder in (tempfile.mkdtemp(), os.path.abspath('run')):\n"
    "    os.makedirs(folder, exist_ok=True); path = os.path.join(folder, 'agent.sock')\n"
    "    s = socket.socket(socket.AF_UNIX)\n"
    "    try:\n"
    "        s.bind(path); made.append(f'{len(path)} bound {path}')\n"
    "    except OSError as error:\n"
    "        made.append(f'{len(path)} refused {error} {path}')\n"
    "os.makedirs('out', exist_ok=True); open('out/bound.txt', 'w').write('\\n'.join(made))\n"
)
# Codex CLI's own sandbox refuses every `bind` of a tool call (its seccomp filter), whatever the
# path: an agent's server cannot run there at all, as a user of Codex finds too.
BINDS = {"codex": False, "claude": True, "gemini": True}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def _eval_repo(root: Path) -> tuple[Path, Path, Path]:
    source = root / "source"
    _write(
        source / SKILL / "SKILL.md",
        """\
        ---
        name: sockets
        description: Starts a local server on a Unix socket.
        ---
        Start the server on a Unix socket under $TMPDIR and one in the project.
        """,
    )
    repo = root / "agentic-evals"
    target = repo / "targets/sockets"
    _write(
        target / "target.yaml",
        f"""\
        target_id: "sockets"
        title: "A skill whose server listens on a Unix socket"
        entry_skill: "{SKILL}/SKILL.md"
        roots: ["{SKILL}"]
        default_suites: ["use"]
        suite_root: "cases"
        allowed_statuses: ["pass", "fail", "blocked"]
        """,
    )
    _write(
        target / "cases/use/suite.yaml",
        f'suite_id: "use"\ntitle: "use"\ncases:\n  - "targets/sockets/cases/use/{CASE}.yaml"\n',
    )
    _write(
        target / f"cases/use/{CASE}.yaml",
        f"""\
        case_id: "{CASE}"
        title: "binds its sockets"
        timeout_s: 120
        input: {{user_prompt: "Start the socket server (bind-sockets)."}}
        assert:
          summary: "both sockets were bound"
          required:
            - description: "The server bound its sockets."
              evidence_scope: ["workspace-files"]
              checks:
                - kind: workspace_file_exists
                  path: "out/bound.txt"
          forbidden: []
        """,
    )
    behaviors = root / "behaviors"
    behaviors.mkdir()
    steps = [{"cmd": f"python3 -c {shlex.quote(BIND)}"}, {"final": "Both sockets are bound."}]
    (behaviors / "bind.yaml").write_text(
        json.dumps({"name": "bind", "match": {"prompt_contains": "(bind-sockets)"}, "steps": steps})
    )
    return repo, source, behaviors


def _run(agent: str, root: Path) -> RunOutcome:
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    repo, source, behaviors = _eval_repo(root)
    return run_scripted(repo, behaviors, root / "runs", source_workspace=source, agent=runner)


@pytest.mark.parametrize("agent", agent_params("codex", "claude", "gemini"))
def test_a_long_case_id_leaves_room_for_the_agents_sockets(agent: str, tmp_path: Path) -> None:
    assert len(CASE) == 100
    outcome = _run(agent, tmp_path)
    (result,) = outcome.results
    attempt_dir = outcome.run_dir.path / f"case-artifacts/{CASE}/attempts/attempt-01"
    attempt = json.loads((attempt_dir / "attempt.json").read_text())
    assert result.status == "pass", (result.notes, attempt.get("reason"))
    assert attempt["isolation"] == "contained", attempt["isolation_report"]
    bound = (attempt_dir / "workspace/files/out/bound.txt").read_text().splitlines()
    assert len(bound) == 2, bound
    for line in bound:
        length, outcome = line.split()[:2]
        assert int(length) <= 107 and "too long" not in line, line
        if BINDS[agent]:
            assert outcome == "bound", line
        else:
            assert "Operation not permitted" in line, line
    # Nothing of the case id reaches the agent's paths.
    assert not any(CASE[:20] in line for line in bound), bound
