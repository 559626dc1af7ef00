"""`agentic-eval install-skill`: copy the packaged `skill-eval/` skill where an agent finds skills."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

import click

from evaluator.cli.agent_flags import AgentHome, agent_home_flags
from evaluator.errors import EXIT_OK, EnvironmentProblem, InputError

SKILL_NAME = "skill-eval"


def packaged_skill() -> Path:
    """`skill-eval/` as shipped in the package (`evaluator/data/skill-eval`)."""
    folder = Path(str(resources.files("evaluator.data").joinpath(SKILL_NAME)))
    if not (folder / "SKILL.md").is_file():
        raise EnvironmentProblem(
            f"the installed package lacks {SKILL_NAME}/SKILL.md; reinstall agentic-eval"
        )
    return folder


def destination(agent: AgentHome, workspace: Path | None) -> Path:
    """Where `agent` discovers skills: in one repository (its workspace skills folder), or in
    its home (the user's own by default)."""
    from evaluator.adapters import get_adapter

    adapter = get_adapter(agent.adapter)
    if workspace is not None:
        if agent.home is not None:
            raise click.UsageError("give an agent home or --workspace, not both")
        return workspace / adapter.skill_dir / SKILL_NAME
    return adapter.home_skill_dir(agent.home or adapter.user_home()) / SKILL_NAME


@click.command("install-skill")
@agent_home_flags(exists=False, what="whose skills folder receives it")
@click.option(
    "--workspace",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Install into one repository, where the agent finds its skills (DIR/.agents/skills/ for"
    " the default agent).",
)
@click.option("--force", is_flag=True, help="Replace an existing installation.")
def command(agent_home: AgentHome, workspace: Path | None, force: bool) -> int:
    """Install the skill-eval skill, so an agent can run evaluations from its own session."""
    target = destination(agent_home, workspace)
    if target.exists() and not force:
        raise InputError("already installed (pass --force to replace it)", path=target)
    try:
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(packaged_skill(), target, ignore=shutil.ignore_patterns("__pycache__"))
    except OSError as exc:
        raise InputError(f"cannot install there: {exc.strerror or exc}", path=target) from exc
    click.echo(str(target))
    return EXIT_OK
