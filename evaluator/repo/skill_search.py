"""Skill folders below a folder: a plugin keeps its skills at `skills/<name>/`, a marketplace of
plugins at `plugins/<plugin>/skills/<name>/`. Used to find a skill by name and to say, when a
folder given as a skill holds no SKILL.md, which folders below it are skills."""

from __future__ import annotations

from pathlib import Path

SKILL_FILE = "SKILL.md"
# An agent's plugin keeps its manifest in a hidden `.<agent>-plugin/` folder: `plugin.json` for
# one plugin, `marketplace.json` for a list of them (the agent is named by the folder found).
PLUGIN_MANIFESTS = (
    (".*-plugin/plugin.json", "a plugin"),
    (".*-plugin/marketplace.json", "a plugin marketplace"),
)

# How deep below a folder skills are looked for: `plugins/<plugin>/skills/<name>/SKILL.md`.
SEARCH_DEPTH = 4
NOT_SEARCHED = ("node_modules", "__pycache__")
# How many found skills a message names before it says how many more there are.
NAMED_IN_MESSAGE = 5


def skills_below(root: Path) -> list[Path]:
    """Skill folders below `root` (not `root` itself), breadth first: hidden folders,
    dependencies and symlinks are not looked into."""
    found: list[Path] = []
    level = [root]
    for _ in range(SEARCH_DEPTH):
        below: list[Path] = []
        for folder in level:
            try:
                children = sorted(folder.iterdir())
            except OSError:
                continue
            for child in children:
                if (
                    child.name.startswith(".")
                    or child.name in NOT_SEARCHED
                    or child.is_symlink()
                    or not child.is_dir()
                ):
                    continue
                if (child / SKILL_FILE).is_file():
                    found.append(child)
                below.append(child)
        level = below
    return found


def no_skill_here(folder: Path, name: str | None = None) -> str:
    """The one line for a folder given as a skill that holds no SKILL.md: what it is when it is
    a plugin or a marketplace, and the skill folders below it to give instead (those whose
    folder is `name`, the evals' `skill_name`, first). Only a skill's own folder is copied into
    a workspace, so the evaluator does not pick one for the author."""
    kind = ""
    for pattern, what in PLUGIN_MANIFESTS:
        manifest = next((p for p in sorted(folder.glob(pattern)) if p.is_file()), None)
        if manifest is not None:
            kind = f"it is {what} ({manifest.relative_to(folder).as_posix()})"
            break
    found = sorted(skills_below(folder), key=lambda p: p.name != name)
    if not found:
        return f"no {SKILL_FILE} in this folder" + (
            f": {kind}, with no skill below it" if kind else ""
        )
    names = [p.relative_to(folder).as_posix() for p in found[:NAMED_IN_MESSAGE]]
    more = f" and {len(found) - len(names)} more" if len(found) > len(names) else ""
    holds = f"{kind}, whose skill folders are" if kind else "skill folders below it:"
    return (
        f"no {SKILL_FILE} in this folder: {holds} {', '.join(names)}{more};"
        " give one skill's folder (only that folder is copied into a workspace)"
    )
