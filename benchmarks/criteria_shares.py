"""How many assertion entries the criteria compiler decides by rules (no model), on prose it was
not tuned on: the public skill-creator suites in `../shared/fixtures/public-suites/` (read in
place) and the upstream fixture `tests/fixtures/upstream/agentic-evals`.

An entry is one prose statement: an `expectations`/`assertions` string of a public suite, or an
assertion entry of the upstream fixture. Typed skill-creator assertions (`file_exists`,
`file_contains`, `command` objects) are no prose: they are counted apart, since they are
structured checks already. The labelled share is over the entries
`tests/fixtures/criteria-labels.json` marks `exact` (they speak only of files, commands, order,
workspace state or literal answer text).

Run: .venv/bin/python -m benchmarks.criteria_shares [--json] [--repo PATH ...] [--evals PATH ...]
     [--pool DIR [--pool-file FILE]]

`--repo PATH` also measures any eval repo in the public agentic-evals shape (every target, every
entry, planned as `explain` plans it), e.g. a checkout of a real upstream repo the compiler was
not tuned on; such entries carry no labels, so they count in their own line only. `--evals PATH`
does the same for a skill-creator `evals.json` read in place (or a skill folder holding one), its
skill found as `run --evals` finds it.

`--pool DIR` measures the held-out pool `benchmarks/heldout-pool.json` names: real public repos,
each extracted at its recorded commit to `DIR/<owner>+<name>/` (never into the project), split
into a TUNE and a TEST half by repo, every entry labelled `exact` or `judgement` by its key
(repo@commit, path, eval, entry; the file holds keys and labels, no text). `--pool-file FILE`
measures another pool file of the same form instead, e.g. `benchmarks/heldout-pool-10.json`
(round 10's pool, repos none of the first pool's).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = ROOT.parent / "shared/fixtures/public-suites"
UPSTREAM = ROOT / "tests/fixtures/upstream/agentic-evals"
LABELS = ROOT / "tests/fixtures/criteria-labels.json"
POOL = ROOT / "benchmarks/heldout-pool.json"


@dataclass(frozen=True)
class Entry:
    key: str  # "<source>#<n>": stable across runs, the key of its label
    text: str
    decided_by: str  # `rules` only for an entry compiled whole
    # Not compiled whole, but a compiled sentence of it fails it alone when it does not hold
    # (`judge/parts.py`; `explain`'s `rules-or-model`): rules can fail it without a model.
    rules_can_fail: bool = False


def public_entries() -> tuple[list[Entry], int]:
    """The prose entries of the public suites, and how many typed assertions they also hold."""
    from evaluator.adapters import agent_names
    from evaluator.contract.models import AssertionEntry
    from evaluator.judge.criteria import compile_entry
    from evaluator.judge.parts import entry_parts
    from evaluator.judge.skill_vocabulary import skill_vocabulary

    entries: list[Entry] = []
    typed = 0
    for path in sorted(PUBLIC.glob("*/upstream/**/evals*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        source = f"public-suites/{path.relative_to(PUBLIC).as_posix()}"
        vocabulary = skill_vocabulary(suite_skill(path), agent_names())
        for case in data.get("evals") or [] if isinstance(data, dict) else []:
            for field in ("expectations", "assertions"):
                for index, item in enumerate(case.get(field) or []):
                    if not isinstance(item, str):
                        typed += 1
                        continue
                    entry = AssertionEntry(description=item)
                    compiled = compile_entry(entry, "required", vocabulary)
                    decided = "rules" if compiled is not None else "model"
                    parts = entry_parts(entry, "required", vocabulary)
                    can_fail = parts is not None and bool(parts.deciding)
                    key = f"{source}#{case.get('id')}.{field}[{index}]"
                    entries.append(Entry(key, item, decided, can_fail))
    return entries, typed


def suite_skill(evals: Path) -> Path | None:
    """The SKILL.md of the skill a public suite's evals file is about: the nearest above it."""
    for folder in evals.parents:
        if (folder / "SKILL.md").is_file():
            return folder / "SKILL.md"
        if folder == PUBLIC:
            break
    return None


def upstream_entries() -> list[Entry]:
    """The upstream fixture's entries, planned exactly as `explain` plans them."""
    return repo_entries(UPSTREAM, "upstream", every_target=False)


def evals_entries(evals: Path, name: str) -> list[Entry]:
    """The entries of a skill-creator `evals.json` (or a skill folder holding one), its skill
    found as `run --evals` finds it, planned as `explain --evals` plans them."""
    from evaluator.cli.options import located_evals

    path, skill = located_evals(evals, None, "--evals")
    return repo_entries(path, name, every_target=False, source_workspace=skill)


def repo_entries(
    root: Path, name: str, *, every_target: bool = True, source_workspace: Path | None = None
) -> list[Entry]:
    """The entries of an eval repo's cases (its default target, or every target)."""
    from evaluator.adapters import agent_names
    from evaluator.judge.chain import plan_entries
    from evaluator.judge.skill_vocabulary import skill_vocabulary
    from evaluator.plan import open_repo, select_cases

    targets: list[str | None] = [None]
    if every_target:
        targets = [p.name for p in sorted((root / "targets").iterdir()) if p.is_dir()]
    entries = []
    for target in targets:
        repo = open_repo(root, source_workspace, target=target, lenient=every_target)
        selection = select_cases(repo, target)
        skill = selection.target.entry_skill_path(repo.source_workspace)
        vocabulary = skill_vocabulary(skill, agent_names())  # as `explain` and a run build it
        for case in selection.cases:
            for plan in plan_entries(case.case, True, vocabulary):
                key = f"{name}/{case.case_id}#{plan.pending.entry_id}"
                can_fail = plan.decided_by in ("rules-or-model", "rules-or-unclear")
                entries.append(
                    Entry(key, plan.pending.entry.description, plan.decided_by, can_fail)
                )
    return entries


def shares() -> dict[str, object]:
    entries, typed = public_entries()
    entries += upstream_entries()
    labels: dict[str, str] = {
        key: value["label"] for key, value in json.loads(LABELS.read_text()).items()
    }
    unlabelled = [e.key for e in entries if e.key not in labels]
    exact = [e for e in entries if labels.get(e.key) == "exact"]
    by_rules = [e for e in entries if e.decided_by == "rules"]
    return {
        "entries": len(entries),
        "by_rules": len(by_rules),
        "share": len(by_rules) / len(entries) if entries else None,
        "labelled_exact": len(exact),
        "labelled_exact_by_rules": sum(e.decided_by == "rules" for e in exact),
        "labelled_share": (
            sum(e.decided_by == "rules" for e in exact) / len(exact) if exact else None
        ),
        "typed_assertions_apart": typed,
        # every entry, the typed ones included, that no model decides: the typed ones by their
        # structured checks (`explain` says `checks`), the prose by rules
        "without_a_model": len(by_rules) + typed,
        "rules_can_fail": sum(e.rules_can_fail for e in entries),
        "every_entry": len(entries) + typed,
        "unlabelled": unlabelled,
        "exact_not_by_rules": [e.key for e in exact if e.decided_by != "rules"],
    }


def pool_keys(folder: Path, pool_file: Path = POOL) -> list[tuple[str, str, Path]]:
    """Each evals file of a held-out pool: its repo, its key prefix (`owner/name@commit:path`)
    and where it is under `folder` (the repo extracted as `<owner>+<name>/`)."""
    pool = json.loads(pool_file.read_text(encoding="utf-8"))
    return [
        (repo, f"{repo}@{held['commit'][:7]}:{path}", folder / repo.replace("/", "+") / path)
        for repo, held in sorted(pool["repos"].items())
        for path in held["evals"]
    ]


def pool_shares(folder: Path, pool_file: Path = POOL) -> dict[str, dict[str, object]]:
    """Per half of the held-out pool (`tune`, `test`): entries, those rules decide, the labelled
    exact ones and those of them rules decide; a judgement rules decide is named (to review:
    a rule may have compiled a sentence that speaks of meaning)."""
    pool = json.loads(pool_file.read_text(encoding="utf-8"))
    labels: dict[str, str] = pool["labels"]
    halves: dict[str, dict[str, object]] = {}
    for repo, prefix, path in pool_keys(folder, pool_file):
        half = halves.setdefault(
            pool["repos"][repo]["half"],
            {
                "repos": [],
                "entries": 0,
                "by_rules": 0,
                "labelled_exact": 0,
                "labelled_exact_by_rules": 0,
                "judgement_by_rules": [],
                "unlabelled": [],
                "exact_not_by_rules": [],
            },
        )
        if repo not in half["repos"]:  # type: ignore[operator]
            half["repos"].append(repo)  # type: ignore[attr-defined]
        for entry in evals_entries(path, prefix):
            half["entries"] += 1  # type: ignore[operator]
            by_rules = entry.decided_by == "rules"
            half["by_rules"] += by_rules  # type: ignore[operator]
            label = labels.get(entry.key)
            if label is None:
                half["unlabelled"].append(entry.key)  # type: ignore[attr-defined]
            elif label == "exact":
                half["labelled_exact"] += 1  # type: ignore[operator]
                half["labelled_exact_by_rules"] += by_rules  # type: ignore[operator]
                if not by_rules:
                    half["exact_not_by_rules"].append(entry.key)  # type: ignore[attr-defined]
            elif by_rules:
                half["judgement_by_rules"].append(entry.key)  # type: ignore[attr-defined]
    return halves


def _counts(measured: list[Entry]) -> dict[str, int]:
    return {
        "entries": len(measured),
        "by_rules": sum(e.decided_by == "rules" for e in measured),
        "rules_can_fail": sum(e.rules_can_fail for e in measured),
    }


def _given(argv: list[str], option: str) -> list[Path]:
    return [Path(argv[i + 1]) for i, arg in enumerate(argv[:-1]) if arg == option]


def main(argv: list[str]) -> int:
    if not PUBLIC.is_dir():
        print(f"no public suites at {PUBLIC}", file=sys.stderr)
        return 2
    figures = shares()
    repos = _given(argv, "--repo")
    for repo in repos:
        if not (repo / "targets").is_dir():
            print(f"{repo}: no targets/ folder (not an eval repo)", file=sys.stderr)
            return 2
        figures[f"repo:{repo}"] = _counts(repo_entries(repo, repo.name))
    from evaluator.errors import InputError

    every_evals = _given(argv, "--evals")
    for evals in every_evals:
        try:
            figures[f"repo:{evals}"] = _counts(evals_entries(evals, str(evals)))
        except InputError as exc:
            print(f"{evals}: {exc}", file=sys.stderr)
            return 2
    repos += every_evals
    pools = _given(argv, "--pool")
    pool_file = (_given(argv, "--pool-file") or [POOL])[-1]
    if pools and not pool_file.is_file():
        print(f"{pool_file}: no such pool file", file=sys.stderr)
        return 2
    for folder in pools:
        missing = [str(p) for _, _, p in pool_keys(folder, pool_file) if not p.is_file()]
        if missing:
            print(
                f"{folder}: the pool is not extracted here: {', '.join(missing)}", file=sys.stderr
            )
            return 2
        figures[f"pool:{folder}"] = pool_shares(folder, pool_file)
    if "--json" in argv:
        print(json.dumps(figures, indent=1))
        return 0

    def percent(value: object) -> str:
        return f"{value:.0%}" if isinstance(value, float) else "n/a"

    print(
        f"all prose entries: {figures['by_rules']} of {figures['entries']} decided by rules"
        f" ({percent(figures['share'])})"
    )
    print(
        f"labelled exact: {figures['labelled_exact_by_rules']} of {figures['labelled_exact']}"
        f" decided by rules ({percent(figures['labelled_share'])})"
    )
    print(
        f"typed skill-creator assertions (structured, not counted): {figures['typed_assertions_apart']}"
    )
    without, every = figures["without_a_model"], figures["every_entry"]
    assert isinstance(without, int) and isinstance(every, int)
    print(
        f"every entry, typed included: {without} of {every} decided without a model"
        f" ({percent(without / every if every else None)}; the typed ones by their own checks)"
    )
    print(
        f"entries rules can fail without a model: {figures['rules_can_fail']} of"
        f" {figures['entries']} (not compiled whole: otherwise the model decides)"
    )
    for repo in repos:
        counts = figures[f"repo:{repo}"]
        assert isinstance(counts, dict)
        share = counts["by_rules"] / counts["entries"] if counts["entries"] else None
        print(
            f"{repo}: {counts['by_rules']} of {counts['entries']} entries decided by rules"
            f" ({percent(share)})"
        )
        print(
            f"{repo}: entries rules can fail without a model: {counts['rules_can_fail']} of"
            f" {counts['entries']} (not compiled whole: otherwise the model decides)"
        )
    for folder in pools:
        halves = figures[f"pool:{folder}"]
        assert isinstance(halves, dict)
        for name, half in sorted(halves.items(), reverse=True):
            entries, exact = half["entries"], half["labelled_exact"]
            print(
                f"pool {name} ({len(half['repos'])} repos): {half['by_rules']} of {entries}"
                f" entries decided by rules ({percent(half['by_rules'] / entries if entries else None)});"
                f" labelled exact: {half['labelled_exact_by_rules']} of {exact}"
                f" ({percent(half['labelled_exact_by_rules'] / exact if exact else None)})"
            )
            for key in half["judgement_by_rules"]:
                print(f"  pool {name}: judgement decided by rules: {key}")
            for key in half["exact_not_by_rules"]:
                print(f"  pool {name}: exact but not by rules: {key}")
            for key in half["unlabelled"]:
                print(f"  pool {name}: unlabelled: {key}")
    for key in figures["exact_not_by_rules"]:  # type: ignore[attr-defined]
        print(f"  exact but not by rules: {key}")
    for key in figures["unlabelled"]:  # type: ignore[attr-defined]
        print(f"  unlabelled: {key}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
