"""A first eval repo for one skill (`agentic-eval init`): a target, a suite, two example cases whose
checks name files the skill really ships, and a good and a bad scripted behaviour per case that
`selftest` tells apart. Everything written is plain YAML the author edits from there.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import yaml

from evaluator.errors import InputError
from evaluator.repo.skill_search import no_skill_here

SUITE = "basics"
# Files a skill ships that an example case may ask the agent to read: text, not too large.
READABLE_SUFFIXES = (".md", ".txt", ".rst", ".yaml", ".yml", ".json")
MAX_READABLE_BYTES = 64 * 1024


@dataclass(frozen=True)
class SkillInfo:
    """A skill folder as the project holds it: paths relative to the project root (the source
    workspace), its name and description from its front matter."""

    name: str
    description: str
    entry: str  # the SKILL.md path
    roots: tuple[str, ...]  # the skill's sub-folders (what a workspace copies besides SKILL.md)
    reference: str | None  # one shipped text file besides SKILL.md, for the second example


@dataclass(frozen=True)
class Scaffold:
    target_id: str
    written: tuple[Path, ...]


def read_skill(path: Path, project: Path) -> SkillInfo:
    """`path`: the skill's folder or its SKILL.md, inside `project`."""
    folder = path if path.is_dir() else path.parent
    entry = folder / "SKILL.md"
    if not entry.is_file():
        raise InputError(no_skill_here(folder), path=folder, field="--skill")
    try:
        relative = folder.resolve().relative_to(project.resolve())
    except ValueError:
        raise InputError(
            f"the skill must be inside the project ({project.resolve()}): runs copy it from there",
            path=folder,
            field="--skill",
        ) from None
    meta = _front_matter(entry)
    name = str(meta.get("name") or folder.name)
    description = " ".join(str(meta.get("description") or "").split())
    roots = tuple(
        (relative / child.name).as_posix()
        for child in sorted(folder.iterdir())
        if child.is_dir() and not child.name.startswith(".")
    )
    return SkillInfo(
        name=name,
        description=description,
        entry=(relative / "SKILL.md").as_posix(),
        roots=roots,
        reference=_reference(folder, relative),
    )


def _front_matter(entry: Path) -> dict[str, object]:
    text = entry.read_text(encoding="utf-8", errors="replace")
    match = re.match(r"---\s*\n(.*?)\n---\s*(?:\n|$)", text, re.S)
    if not match:
        return {}
    try:
        loaded = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _reference(folder: Path, relative: Path) -> str | None:
    """The first shipped text file besides SKILL.md (references first), for the second case."""
    candidates = sorted(
        (p for p in folder.rglob("*") if p.is_file() and p.name != "SKILL.md"),
        key=lambda p: (p.relative_to(folder).parts[0] != "references", p.as_posix()),
    )
    for path in candidates:
        if any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        if path.suffix in READABLE_SUFFIXES and 0 < path.stat().st_size <= MAX_READABLE_BYTES:
            return (relative / path.relative_to(folder)).as_posix()
    return None


def target_id_for(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug or "my-skill"


def write_repo(skill: SkillInfo, repo: Path, *, force: bool = False) -> Scaffold:
    """Writes the target (refusing an existing one unless `force`), and the repo's settings file
    when there is none yet."""
    target_id = target_id_for(skill.name)
    target_dir = repo / "targets" / target_id
    if target_dir.exists() and not force:
        raise InputError(
            "a target of that name exists (pass --force to replace its files)",
            path=target_dir,
        )
    # --force regenerates: what an earlier `init` wrote (its suite and behaviours) goes first,
    # so no case or behaviour of a file the skill no longer ships stays behind.
    for generated in (
        target_dir / "cases" / SUITE,
        target_dir / "behaviors" / "good",
        target_dir / "behaviors" / "bad",
    ):
        if generated.is_dir() and not generated.is_symlink():
            shutil.rmtree(generated)
    files: dict[Path, object] = {}
    files[target_dir / "target.yaml"] = {
        "target_id": target_id,
        "title": f"{skill.name} skill",
        "entry_skill": skill.entry,
        "roots": list(skill.roots),
        "default_suites": [SUITE],
        "suite_root": "cases",
        "defaults": {"attempts": 1, "timeout_s": 300},
    }
    cases = _cases(skill, target_id)
    files[target_dir / "cases" / SUITE / "suite.yaml"] = {
        "suite_id": SUITE,
        "title": "First examples: edit the prompts into requests your users really make",
        "cases": [f"targets/{target_id}/cases/{SUITE}/{case['case_id']}.yaml" for case, _ in cases],
    }
    for case, (good, bad) in cases:
        case_id = str(case["case_id"])
        files[target_dir / "cases" / SUITE / f"{case_id}.yaml"] = case
        files[target_dir / "behaviors" / "good" / f"{case_id}.yaml"] = good
        files[target_dir / "behaviors" / "bad" / f"{case_id}.yaml"] = bad
    settings = repo / "agentic-eval.yaml"
    if not settings.exists():
        files[settings] = {"default_target": target_id}
    for path, content in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            yaml.safe_dump(content, sort_keys=False, allow_unicode=True, width=100),
            encoding="utf-8",
        )
    return Scaffold(target_id, tuple(files))


def _cases(
    skill: SkillInfo, target_id: str
) -> list[tuple[dict[str, object], tuple[object, object]]]:
    about = skill.description.split(". ")[0].rstrip(".") if skill.description else skill.name
    first_marker = f"a task the {skill.name} skill covers"
    first = _case(
        f"{target_id}-reads-skill",
        "The agent reads the skill before it acts",
        f"I need help with {first_marker} ({about}). What should I do first?",
        "The skill's instructions were consulted.",
        {"kind": "file_read", "path": skill.entry},
    )
    first_steps = [{"cmd": f"cat {skill.entry}"}]
    behaviours = [
        (
            first,
            first_marker,
            first_steps,
            "read the skill, then answered",
        )
    ]
    document = skill.reference or skill.entry
    second_marker = f"what the {skill.name} skill's {Path(document).name} recommends"
    second_check: dict[str, object] = (
        {"kind": "file_read", "path": skill.reference}
        if skill.reference
        else {"kind": "file_read", "path": skill.entry, "min_share": 0.8}
    )
    # Without a reference file the second case asks for most of SKILL.md: its own id.
    second_id = (
        f"{target_id}-reads-{target_id_for(Path(document).stem)}"
        if skill.reference
        else f"{target_id}-reads-most-of-the-skill"
    )
    second = _case(
        second_id,
        f"The agent consults {Path(document).name}",
        f"Tell me {second_marker}, following the skill.",
        f"{document} was consulted.",
        second_check,
    )
    second_steps = [{"cmd": f"cat {skill.entry}"}]
    if skill.reference:
        second_steps.append({"cmd": f"cat {skill.reference}"})
    behaviours.append((second, second_marker, second_steps, f"read {document}, then answered"))
    out: list[tuple[dict[str, object], tuple[object, object]]] = []
    for case, marker, steps, did in behaviours:
        case_id = str(case["case_id"])
        case["golden"] = [
            {"behavior": f"behaviors/good/{case_id}.yaml", "expect": "pass"},
            {"behavior": f"behaviors/bad/{case_id}.yaml", "expect": "fail"},
        ]
        good = {
            "name": f"good/{case_id}",
            "description": f"Follows the skill: {did}.",
            "match": {"prompt_contains": marker},
            "steps": [*steps, {"final": "Done: I followed the skill's instructions."}],
        }
        bad = {
            "name": f"bad/{case_id}",
            "description": "Answers without reading the skill.",
            "match": {"prompt_contains": marker},
            "steps": [{"final": "Done, from memory."}],
        }
        out.append((case, (good, bad)))
    return out


def _case(
    case_id: str, title: str, prompt: str, summary: str, check: dict[str, object]
) -> dict[str, object]:
    return {
        "case_id": case_id,
        "title": title,
        "input": {"user_prompt": prompt},
        "setup": {},
        "assert": {
            "summary": summary,
            "required": [
                {
                    "description": summary,
                    "pass_criteria": [
                        f"The accepted session evidence shows consultation of `{check['path']}`."
                    ],
                    "evidence_scope": ["accepted-session.json"],
                    "checks": [check],
                }
            ],
        },
    }
