"""Start-up: `--version` and `--help` import no command module, and the lazy table is true.

The top-level group (evaluator/cli/lazy.py) lists its commands from a table in
evaluator/cli/main.py, so that start-up does not import the pipeline. These tests assert on the
modules a fresh interpreter imports, never on time (benchmarks/startup.py measures the time).
"""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from evaluator.cli.lazy import LazyGroup
from evaluator.cli.main import COMMANDS, cli, run_cli
from tests.conftest import ROOT

# What no `--help` may import: pydantic (so no project model module, all of which import it),
# jinja2, tree-sitter, ...
HEAVY_LIBRARIES = (
    "pydantic",
    "pydantic_core",
    "jinja2",
    "tree_sitter",
    "tree_sitter_bash",
    "scipy",
    "numpy",
)
# ... the contract models, the judge, the model judge and the pipeline.
HEAVY_PACKAGES = ("evaluator.contract", "evaluator.judge", "evaluator.grader", "evaluator.pipeline")
# `--version` and `--help` load these of the CLI's modules and no command's.
CLI_START_UP = {"evaluator.cli.main", "evaluator.cli.lazy"}


def _imported_modules(*args: str) -> tuple[set[str], str]:
    """The modules `python -X importtime -m evaluator ARGS` imported, and what it printed.

    importtime logs what `import` statements load, so every module a command's module imports,
    but not the command's module itself, which the lazy group loads with importlib.
    """
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "evaluator", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    modules.discard("package")  # the header line: "import time: self [us] | cumulative | package"
    return modules, done.stdout


def _loads(modules: set[str], package: str) -> bool:
    return any(m == package or m.startswith(f"{package}.") for m in modules)


def _heavy(modules: set[str]) -> list[str]:
    """The heavy libraries and stages among `modules` (no command's --help needs one)."""
    libraries = [m for m in modules if m.split(".")[0] in HEAVY_LIBRARIES]
    return sorted(libraries + [p for p in HEAVY_PACKAGES if _loads(modules, p)])


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["-h"]], ids=" ".join)
def test_version_and_help_import_no_command_module(argv: list[str]) -> None:
    modules, out = _imported_modules(*argv)
    assert "evaluator.cli.main" in modules  # the parse saw the project's own imports
    assert _heavy(modules) == []
    assert {m for m in modules if m.startswith("evaluator.cli.")} == CLI_START_UP
    assert ("0.1.0" in out) if argv == ["--version"] else ("validate" in out)


def test_the_lazy_table_matches_every_command() -> None:
    context = click.Context(cli)
    for name, entry in COMMANDS.items():
        command = cli.get_command(context, name)
        assert command is not None and command.name == name
        first_paragraph = (command.help or "").split("\n\n", 1)[0]
        assert entry.summary == " ".join(first_paragraph.split()), name
        assert entry.hidden == command.hidden, name


def test_help_from_the_table_is_the_help_of_the_loaded_commands() -> None:
    """The top-level help is the same text from the table as from the imported commands."""
    settings = {"help": cli.help, "params": cli.params, "context_settings": cli.context_settings}
    # a fresh group: `cli` may have loaded its commands in an earlier test
    lazy = LazyGroup("agentic-eval", lazy_commands=COMMANDS, **settings)
    lazy_help = lazy.get_help(click.Context(lazy, info_name="agentic-eval"))
    assert lazy.commands == {}  # nothing was imported to write it
    loaded = [cli.get_command(click.Context(cli), name) for name in COMMANDS]
    eager = click.Group("agentic-eval", commands=[c for c in loaded if c], **settings)
    assert lazy_help == eager.get_help(click.Context(eager, info_name="agentic-eval"))
    assert "  schemas " not in lazy_help and "  validate " in lazy_help


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_commands_help_loads_no_model_no_stage_and_no_heavy_library(name: str) -> None:
    """What a command drives is imported when it runs: its `--help` needs only its options."""
    modules, out = _imported_modules(name, "--help")
    assert f"agentic-eval {name}" in out  # the command was loaded
    assert _heavy(modules) == []


def test_a_mistyped_command_gets_the_same_suggestion_as_before(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """click suggests from the commands it holds; the lazy group suggests from every name."""
    assert run_cli(["valdate"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("agentic-eval: No such command 'valdate'.")
    if hasattr(click.exceptions, "NoSuchCommand"):  # click 8.4 and later suggest
        assert "Did you mean" in err and "'validate'" in err


def test_reading_the_models_loads_no_statistics() -> None:
    """`schemas check` (every `./dev check` runs it) renders every model, the comparison's and
    the `--json` outputs' among them, without the statistics behind them: scipy alone was
    about a second of its start-up."""
    modules, out = _imported_modules("schemas", "check")
    assert "match the models" in out
    assert "evaluator.outputs.models" in modules and "evaluator.compare.model" in modules
    assert [m for m in modules if m.split(".")[0] in ("scipy", "numpy")] == []
    assert not _loads(modules, "evaluator.stats")


def test_the_statistics_load_scipy_when_first_called() -> None:
    """`compare` and `evaluate` import their builders at start; scipy (most of a second) loads
    only when a statistic is first computed, so a wrong argument is refused at once."""
    code = (
        "import sys\n"
        "import evaluator.compare.build, evaluator.evaluate.build, evaluator.stats.variants\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy'}))\n"
        "from evaluator.stats.proportion import wilson\n"
        "wilson(3, 4)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy'}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:2] == ["[]", "['scipy']"]
