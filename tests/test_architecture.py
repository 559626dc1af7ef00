"""The import rules of docs/architecture.md, enforced: no stage imports a later one."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

LEAVES = {
    "errors",
    "yamlsource",
    "credentials",
    "prompting",
    "schema_files",
    "codex_items",
    "vocabulary",
    "defaults",
    "safepath",
    "patterns",
    "kernelpaths",
    "__init__",
    "__main__",
    "data",
    "demo",
}
ALLOWED: dict[str, set[str]] = {
    "contract": set(),
    "repo": {"contract"},
    "plan": {"repo", "contract"},
    "workspace": {"repo", "contract"},
    "agents": {"sandbox"},
    # Each agent's adapter: its runners, session store and format, on the shared stages.
    "adapters": {"agents", "sandbox", "sessions", "evidence"},
    "sandbox": set(),
    "sessions": {"evidence"},
    "evidence": set(),
    "isolation": {"evidence", "sandbox"},
    "judge": {"evidence", "contract"},
    "artifacts": {"contract", "judge"},
    "pipeline": {
        "contract",
        "repo",
        "plan",
        "workspace",
        "agents",
        "adapters",
        "sandbox",
        "sessions",
        "evidence",
        "isolation",
        "judge",
        "artifacts",
        "html",
        "modelserver",
        "execute",
    },
    # where attempts run (a thread pool, Ray tasks): it knows nothing of attempts, only how to
    # run a function on specs and stop the agents it started
    "execute": {"agents"},
    "modelserver": {"contract"},
    # the HTML views read finished runs through the artifact models, comparisons through theirs
    "html": {"artifacts", "judge", "compare"},
    # The model judge runs codex as the agents do, against a scripted server under --behaviors.
    "grader": {"agents", "adapters", "evidence", "judge", "contract", "modelserver"},
    # scores and gate decisions over finished runs
    "gate": {"artifacts", "contract"},
    # the run history: finished run directories, read through the artifact models
    "history": {"artifacts"},
    # optimiser adapters drive whole runs
    "integrations": {
        "contract",
        "repo",
        "plan",
        "workspace",
        "agents",
        "artifacts",
        "pipeline",
        "gate",
        "modelserver",
    },
    # schemas.py generates the artifact schemas too, so it may read their models.
    "schemas": {"contract", "artifacts", "compare"},
    # comparisons of two finished runs (read as the gate reads them)
    "compare": {"artifacts", "gate", "contract"},
    # what CI systems read (JUnit XML, the GitHub step summary) from runs and comparisons
    "ci": {"artifacts", "compare", "contract"},
}


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("evaluator.")
        ):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("evaluator."):
                    found.add(alias.name.split(".")[1])
    return found


def test_packages_import_only_what_the_architecture_allows() -> None:
    problems = []
    for path in sorted((ROOT / "evaluator").rglob("*.py")):
        parts = path.relative_to(ROOT / "evaluator").with_suffix("").parts
        package = parts[0]
        if package in ("cli", "data") or (len(parts) == 1 and package not in ALLOWED):
            continue
        allowed = ALLOWED[package] | LEAVES | {package}
        for imported in _imports(path) - allowed:
            problems.append(f"{path.relative_to(ROOT)} imports evaluator.{imported}")
    assert problems == []


def test_loading_an_eval_repo_pulls_in_no_later_stage() -> None:
    """The import rule holds transitively too: a leaf that imported a later stage (the schema
    generator once did) would smuggle it into the loader."""
    code = (
        "import sys, evaluator.repo, evaluator.plan;"
        "later = ('artifacts', 'judge', 'pipeline', 'evidence', 'agents', 'isolation');"
        "print(sorted({m.split('.')[1] for m in sys.modules"
        " if m.startswith('evaluator.') and m.split('.')[1] in later}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
