"""`agentic-eval init --skill PATH`: a first eval repo for a skill, and the commands to run next."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.adapters import DEFAULT_RUNNER
from evaluator.cli.agent_flags import runner_option
from evaluator.errors import EXIT_OK


@click.command("init")
@click.option(
    "--skill",
    "skill_path",
    type=click.Path(path_type=Path, exists=True),
    required=True,
    help="The skill's folder (holding SKILL.md), inside the current project.",
)
@runner_option(
    f"The agent the printed commands run, a runner or an agent (default {DEFAULT_RUNNER})."
)
@click.option(
    "--repo",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("agentic-evals"),
    show_default=True,
    help="Where the eval repo goes (its parent is the project the skill is copied from).",
)
@click.option("--force", is_flag=True, help="Replace the files of an existing target of that name.")
def command(skill_path: Path, agent: str | None, repo: Path, force: bool) -> int:
    """Write an eval repo for a skill: target, suite, two example cases, good and bad behaviours."""
    from evaluator.repo.gitignore import ignore_runs
    from evaluator.repo.scaffold import read_skill, write_repo

    project = repo.resolve().parent
    skill = read_skill(skill_path, project)
    made = write_repo(skill, repo, force=force)
    target = made.target_id
    click.echo(f"wrote target {target} in {repo}/ ({len(made.written)} files)")
    # The printed commands write `runs/` here (their --runs-dir default, relative): its
    # megabytes of artifacts must not be committed with the project.
    click.echo(ignore_runs(Path(".")))
    flags = f" --agent {agent}" if agent else ""
    behaviors = f"{repo}/targets/{target}/behaviors/good"
    repo_flag = "" if repo == Path("agentic-evals") else f" --repo {repo}"
    click.echo("next:")
    click.echo(f"  agentic-eval validate{repo_flag} --target {target}")
    click.echo(f"  agentic-eval explain{repo_flag} --target {target}")
    click.echo(f"  agentic-eval selftest{repo_flag} --target {target}{flags}")
    click.echo(
        f"then a scripted run: agentic-eval run{repo_flag} --target {target}{flags}"
        f" --behaviors {behaviors}"
    )
    click.echo("(docs/first-target.md explains each file and what to edit first)")
    folder = skill_path if skill_path.is_dir() else skill_path.parent
    if (folder / "evals" / "evals.json").is_file():
        # A skill-creator author's evals are the cases that matter, not the two examples above.
        click.echo(
            f"note: {folder}/evals/evals.json exists: `agentic-eval run --evals {folder}` runs it"
            f" as it is; instead of these examples, `agentic-eval convert {folder} --out DIR`"
            " turns it into YAML cases in a new DIR (docs/coming-from-skill-creator.md)"
        )
    return EXIT_OK
