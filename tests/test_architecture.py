"""The import rules of docs/architecture.md, enforced: no stage imports a later one."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from evaluator.adapters import all_adapters
from tests.conftest import ROOT, parsed_module

LEAVES = {
    "errors",
    "yamlsource",
    "credentials",
    "prompting",
    "schema_files",
    "vocabulary",
    "defaults",
    "safepath",
    "patterns",
    "kernelpaths",
    "textforms",
    "clipping",
    "surrogates",
    "gitobjects",
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
    "adapters": {"agents", "sandbox", "sessions", "evidence", "modelserver", "grader"},
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
        "interop",
        "modelserver",
        "execute",
        "triggers",
    },
    # where attempts run (a thread pool, Ray tasks): it knows nothing of attempts, only how to
    # run a function on specs and stop the agents it started
    "execute": {"agents"},
    "modelserver": {"contract"},
    # the HTML views read finished runs through the artifact models, comparisons through theirs
    "html": {"artifacts", "judge", "compare"},
    # The model judge runs an agent CLI (its adapter's judge backend, handed in by the CLI) as
    # the agents run, against a scripted server under --behaviors.
    "grader": {"agents", "evidence", "judge", "contract", "modelserver"},
    # scores and gate decisions over finished runs (the uplift metric's statistics)
    "gate": {"artifacts", "contract", "stats"},
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
    # other tools' formats (skill-creator, Harbor ATIF) written from finished runs' artifacts and
    # saved sessions (read through the adapters' agent-neutral evidence)
    "interop": {"artifacts", "judge", "adapters", "evidence", "contract"},
    # schemas.py generates the artifact schemas too, so it may read their models.
    "schemas": {"contract", "artifacts", "compare", "interop", "evaluate", "outputs"},
    # the shapes of the commands' --json objects, some of them built from these models
    "outputs": {"artifacts", "compare", "history", "judge", "pipeline", "stats"},
    # comparisons of two finished runs (read as the gate reads them)
    "compare": {"artifacts", "gate", "contract", "stats"},
    # trigger evaluation: metrics, and the registry check over an adapter's discovery folders
    "triggers": {"adapters", "evidence", "contract", "stats"},
    # statistics of two variants on the same cases: pure functions over counts
    "stats": set(),
    # `evaluate`: variants of a skill run as one interleaved set of runs, compared with `stats`
    "evaluate": {
        "contract",
        "repo",
        "plan",
        "workspace",
        "pipeline",
        "artifacts",
        "stats",
        "interop",
        "isolation",
        "adapters",
        "evidence",
        "sandbox",
        # rubric scores reach the model judge only through its seam, `judge/scoring.py`
        "judge",
        # eval-report.html shows eval-report.md rendered (`html/markdown.py`)
        "html",
    },
    # what CI systems read (JUnit XML, the GitHub step summary) from runs and comparisons
    "ci": {"artifacts", "compare", "contract"},
}


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(parsed_module(path)):
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


# Where an agent may be named: its adapter, the scripted model server (one module per provider
# API, which knows what each agent sends), and (outside this scan) tests and docs.
AGENT_AWARE = ("adapters", "modelserver")
# Names kept for what was written before the adapters existed, each with why.
KEPT_NAMES = {
    # older manifests carry `codex_version`; `evidence_mode`'s default is the public contract's
    ("artifacts/models.py", "codex"),
    # the history database's column of those runs' versions
    ("history/record.py", "codex"),
    ("history/migrations.py", "codex"),
}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _names_and_strings(tree: ast.AST) -> Iterator[tuple[int, str, str]]:
    """(line, "name" | "string", text) for every identifier and every string that is not a
    docstring (docstrings and comments may say which agent a choice was made for)."""
    docs = _docstrings(tree)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield line, "string", node.value
        elif isinstance(node, ast.Name):
            yield line, "name", node.id
        elif isinstance(node, ast.Attribute):
            yield line, "name", node.attr
        elif isinstance(node, ast.arg) or (isinstance(node, ast.keyword) and node.arg):
            yield line, "name", node.arg
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield line, "name", node.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield line, "name", node.module
        elif isinstance(node, ast.alias):
            yield line, "name", node.name


def test_no_agent_is_named_outside_its_adapter() -> None:
    """An agent's name, its variables, its session-file patterns and its tool names appear only
    in its adapter (and the scripted model server): everything else holds an adapter."""
    problems = []
    # each adapter's word pattern compiled once: the scan asks it of every name in the package
    adapters = [
        (
            adapter,
            re.compile(
                rf"(?<![a-z0-9])(?:{'|'.join(re.escape(w) for w in adapter.markers.words)})(?![a-z0-9])",
                re.I,
            ),
        )
        for adapter in all_adapters()
    ]
    for path in sorted((ROOT / "evaluator").rglob("*.py")):
        relative = path.relative_to(ROOT / "evaluator")
        if relative.parts[0] in AGENT_AWARE:
            continue
        tree = parsed_module(path)
        for line, kind, text in _names_and_strings(tree):
            for adapter, words in adapters:
                markers = adapter.markers
                found = None
                if words.search(text):
                    found = markers.words[0]
                elif kind == "string":
                    found = next(
                        (
                            marker
                            for marker in (*markers.env_vars, *markers.session_patterns)
                            if marker in text
                        ),
                        None,
                    ) or (text if text in markers.tool_names else None)
                if found and (str(relative), found) not in KEPT_NAMES:
                    problems.append(f"evaluator/{relative}:{line} names {adapter.name}: {text!r}")
    assert problems == []


def _shell_imports(path: Path) -> set[str]:
    """The `evaluator.evidence.shell` submodules a module imports (`families.git`, `walker`)."""
    prefix = "evaluator.evidence.shell."
    found = set()
    for node in ast.walk(parsed_module(path)):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module in ("evaluator.evidence.shell", prefix + "families"):
                base = node.module.removeprefix("evaluator.evidence.shell").lstrip(".")
                found.update(f"{base}.{a.name}".lstrip(".") for a in node.names)
            elif node.module.startswith(prefix):
                found.add(node.module.removeprefix(prefix))
    return found


def test_the_shell_walker_knows_no_command_family() -> None:
    """evidence/shell: the walk and the registry name no command family (families register
    themselves through `@handles`), and families/__init__.py lists every family module."""
    package = ROOT / "evaluator/evidence/shell"
    for path in sorted(package.glob("*.py")):
        if path.name == "__init__.py":
            continue
        families = {m for m in _shell_imports(path) if m.startswith("families")}
        assert families == set(), f"{path.name} imports {families}"
    listed = {m.removeprefix("families.") for m in _shell_imports(package / "families/__init__.py")}
    modules = {p.stem for p in (package / "families").glob("*.py")} - {"__init__"}
    assert listed == modules


# Folders under tests/ that hold no tests of a package: data the tests read.
TEST_DATA = {"fixtures", "isolation_corpus", "__pycache__"}


def test_the_tests_mirror_the_packages() -> None:
    """tests/<package>/ holds the tests of evaluator/<package>/; tests/test_<x>.py at the top
    are those of the top-level modules and of the project as a whole (README, packaging, the
    import rules). A test folder that names no package, or a test file left below it in a
    folder of its own, fails here."""
    tests = ROOT / "tests"
    packages = {p.name for p in (ROOT / "evaluator").iterdir() if (p / "__init__.py").is_file()}
    folders = {p.name for p in tests.iterdir() if p.is_dir()} - TEST_DATA
    assert folders - packages == set(), "test folders that name no evaluator package"
    for folder in folders:
        assert (tests / folder / "__init__.py").is_file(), f"tests/{folder} is not a package"
        nested = [p for p in (tests / folder).iterdir() if p.is_dir() and p.name not in TEST_DATA]
        assert nested == [], f"tests/{folder} has folders of its own: {nested}"
