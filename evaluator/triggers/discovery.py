"""The clean-registry check: which skills the agent of one attempt could discover, and whether
any of them makes a trigger measurement wrong.

Every folder the adapter says its agent discovers skills from (`discovery_dirs`: relative to the
workspace, `$AGENT_HOME/...`, `~/...` under the HOME it was given) is listed as launched. A skill
is a folder holding `SKILL.md`; its name is the one the agent gives it (`AgentAdapter.skill_name`:
the front matter's `name` or the folder's, by the agent's own rule). The
attempt is invalid, with the reason, when a skill lives in the agent home or the user's home
(a host or user skill), when one we installed is missing, when a skill we did not install is
in the workspace, or when two skills share a name (a duplicate, or a same-name copy shadowing
ours). Hidden folders in the agent home (`skills/.system/`) hold the agent's own bundled skills:
listed, allowed, but never under the name of one we installed. Where the agent reports the
skills it sees, that list must be what we installed (plus its bundled ones).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Literal

from evaluator.evidence.triggers import SkillSource, declared_skill_name

if TYPE_CHECKING:
    from evaluator.adapters.base import AgentAdapter

Scope = Literal["workspace", "agent-home", "user-home", "bundled"]


@dataclass(frozen=True)
class DiscoveredSkill:
    name: str
    folder: Path
    scope: Scope


@dataclass(frozen=True)
class RegistryCheck:
    skills: list[DiscoveredSkill]
    reported: list[str] | None
    problems: list[str] = field(default_factory=list)

    @property
    def invalid_reason(self) -> str | None:
        """Why the attempt cannot count, or None when the registry is clean."""
        return "unclean skill registry: " + "; ".join(self.problems) if self.problems else None


_FIELD = re.compile(r"^(name|description):\s*['\"]?(.*?)['\"]?\s*$", re.M)


def front_matter_fields(text: str) -> dict[str, str]:
    """`name` and `description` from a SKILL.md's front matter (none without front matter)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
    if end is None:
        return {}
    return {m.group(1): m.group(2).strip() for m in _FIELD.finditer("\n".join(lines[1:end]))}


def launched_skills(adapter: AgentAdapter, workspace: Path) -> list[DiscoveredSkill]:
    """The workspace's skills as the agent is launched on it (call before it runs)."""
    found: list[DiscoveredSkill] = []
    for root, scope in discovery_roots(adapter, workspace, workspace, workspace):
        if scope == "workspace":
            found += _skills_in(adapter, root, scope)
    return _one_per_folder(found)


def _one_per_folder(skills: Sequence[DiscoveredSkill]) -> list[DiscoveredSkill]:
    """Each skill folder once, at its first listing: a link the runner made from one discovery
    place to a skill in another (Gemini CLI's `.gemini/skills/x` to `.agents/skills/x`) is the
    same files, no second skill; a copy elsewhere, even byte for byte, is another."""
    seen: set[Path] = set()
    kept: list[DiscoveredSkill] = []
    for skill in skills:
        real = skill.folder.resolve()
        if real not in seen:
            seen.add(real)
            kept.append(skill)
    return kept


def _skills_in(adapter: AgentAdapter, root: Path, scope: Scope) -> list[DiscoveredSkill]:
    found: list[DiscoveredSkill] = []
    if not root.is_dir():
        return found

    def named(folder: Path) -> str:
        return adapter.skill_name(folder.name, declared_skill_name(folder))

    for entry in sorted(root.iterdir()):
        if (entry / "SKILL.md").is_file():
            found.append(DiscoveredSkill(named(entry), entry, scope))
        elif entry.name.startswith(".") and entry.is_dir() and scope == "agent-home":
            found += [
                DiscoveredSkill(named(inner), inner, "bundled")
                for inner in sorted(entry.iterdir())
                if (inner / "SKILL.md").is_file()
            ]
    return found


def discovery_roots(
    adapter: AgentAdapter, workspace: Path, agent_home: Path, home: Path
) -> list[tuple[Path, Scope]]:
    """Each folder the agent discovers skills from, resolved for this attempt."""
    roots: list[tuple[Path, Scope]] = []
    for folder in adapter.discovery_dirs:
        if folder.startswith("$AGENT_HOME/"):
            roots.append((agent_home / folder.removeprefix("$AGENT_HOME/"), "agent-home"))
        elif folder.startswith("~/"):
            roots.append((home / folder.removeprefix("~/"), "user-home"))
        else:
            roots.append((workspace / PurePosixPath(folder), "workspace"))
    return roots


def check_registry(
    adapter: AgentAdapter,
    *,
    workspace: Path,
    agent_home: Path,
    home: Path,
    installed: Collection[str],
    reported: Collection[str] | None = None,
    launched: Sequence[DiscoveredSkill] | None = None,
    made_in_run: Callable[[Path], bool] | None = None,
) -> RegistryCheck:
    """The attempt's discoverable skills and what is wrong with them. `installed`: the names of
    the skills we placed in the workspace (target and distractors); `reported`: the skill list
    the agent itself gave, where it gives one.

    After the agent ran, what it did to the folders is no registry problem (red team 8: a
    misfiring attempt added, removed or renamed a skill folder to make itself invalid and drop
    out of the metrics): `launched` is the workspace's skills as listed before it ran (then
    used instead of the workspace's folders now), and a home skill for which
    `made_in_run(folder)` holds was made during the attempt in a home the eval made empty."""
    skills: list[DiscoveredSkill] = []
    for root, scope in discovery_roots(adapter, workspace, agent_home, home):
        if scope == "workspace" and launched is not None:
            continue
        skills += [
            s
            for s in _skills_in(adapter, root, scope)
            if made_in_run is None or s.scope == "workspace" or not made_in_run(s.folder)
        ]
    if launched is not None:
        skills = [*launched, *skills]
    skills = _one_per_folder(skills)
    problems: list[str] = []
    by_name: dict[str, list[DiscoveredSkill]] = {}
    for skill in skills:
        by_name.setdefault(skill.name, []).append(skill)
    for name, copies in by_name.items():
        if len(copies) > 1:
            kind = "a same-name copy shadows" if name in installed else "a duplicate of"
            where = ", ".join(str(c.folder) for c in copies)
            problems.append(f"{kind} skill {name!r} ({where})")
    for skill in skills:
        if skill.scope in ("agent-home", "user-home"):
            problems.append(f"{skill.scope} skill {skill.name!r} at {skill.folder}")
        elif skill.scope == "workspace" and skill.name not in installed:
            problems.append(f"skill {skill.name!r} in the workspace was not installed by us")
    workspace_names = {s.name for s in skills if s.scope == "workspace"}
    for name in sorted(set(installed) - workspace_names):
        problems.append(f"skill {name!r} is not discoverable in the workspace")
    if reported is not None:
        bundled = {s.name for s in skills if s.scope == "bundled"}
        for name in sorted(set(reported) - set(installed) - bundled):
            problems.append(f"the agent reports skill {name!r}, which was not installed")
        for name in sorted(set(installed) - set(reported)):
            problems.append(f"the agent does not report skill {name!r}")
    return RegistryCheck(skills, sorted(reported) if reported is not None else None, problems)


def installed_sources(check: RegistryCheck, workspace: Path) -> list[SkillSource]:
    """The workspace's skills as the trigger signal reads them: name, `SKILL.md` relative to
    the workspace (where the agent reads it) and its text as launched."""
    sources = []
    for skill in check.skills:
        if skill.scope != "workspace":
            continue
        path = skill.folder / "SKILL.md"
        text = path.read_text(encoding="utf-8", errors="replace")
        sources.append(SkillSource(skill.name, path.relative_to(workspace).as_posix(), text))
    return sources
