"""`agentic-eval install-skill`: copy the packaged `skill-eval/` skill where an agent finds skills."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

import click

from evaluator.adapters.codex.home import user_codex_home
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


def destination(codex_home: Path | None, claude_dir: Path | None, workspace: Path | None) -> Path:
    """Codex reads `$CODEX_HOME/skills/` and a repository's `.agents/skills/`; Claude Code reads
    `~/.claude/skills/`."""
    if sum(x is not None for x in (codex_home, claude_dir, workspace)) > 1:
        raise click.UsageError("give one of --codex-home, --claude-dir, --workspace")
    if workspace is not None:
        return workspace / ".agents" / "skills" / SKILL_NAME
    if claude_dir is not None:
        return claude_dir / "skills" / SKILL_NAME
    return (codex_home or user_codex_home()) / "skills" / SKILL_NAME


@click.command("install-skill")
@click.option(
    "--codex-home",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Install for Codex into DIR/skills/ (the default, with $CODEX_HOME or ~/.codex).",
)
@click.option(
    "--claude-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Install for Claude Code into DIR/skills/ (e.g. ~/.claude).",
)
@click.option(
    "--workspace",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Install into one repository: DIR/.agents/skills/.",
)
@click.option("--force", is_flag=True, help="Replace an existing installation.")
def command(
    codex_home: Path | None, claude_dir: Path | None, workspace: Path | None, force: bool
) -> int:
    """Install the skill-eval skill, so an agent can run evaluations from its own session."""
    target = destination(codex_home, claude_dir, workspace)
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
