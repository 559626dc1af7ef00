"""Which paths a shell command touches, from a real bash parse (tree-sitter-bash).

Closed world: every command has a handler in one table (`registry.py`), registered by its
family module under `families/` through `@handles(...)` or, for commands a model alone
describes, `table({...})`; anything else (an unknown command, a computed command name, `eval`
of computed text, aliases, functions, unmodelled expansion, program text that cannot be read) is
reported as opaque, which makes the session `unverifiable`. docs/evidence-access.md lists the
same commands (tests/evidence/test_evidence_access_docs.py checks it).

- `walker.py`: the walk over the parse (statements, pipelines, redirects, here-docs,
  expansions), the lexical pre-check that skips the parse for a command of plain words, and the
  parse cache;
- `model.py`: `CommandModel`, the one way a command's options and operands are described;
- `analysis.py`: `analyze_command` and `analyze_program`, cached per (text, cwd, home).
"""

from evaluator.evidence.shell import families  # noqa: F401  (registers every command)
from evaluator.evidence.shell.analysis import analyze_command, analyze_program
from evaluator.evidence.shell.families.interpreters import SHELLS, shebang_language
from evaluator.evidence.shell.model import PATH_ROLES, CommandModel, Role, split_options
from evaluator.evidence.shell.registry import command_models, handled_commands
from evaluator.evidence.shell.results import (
    ContentWrite,
    PathAccess,
    ProgramLanguage,
    ScriptRun,
    ShellAnalysis,
)
from evaluator.evidence.shell.text import decode_ansi_c

# Every handled command's model, by name (what `split_options` reads its arguments with).
COMMANDS = command_models()

__all__ = [
    "COMMANDS",
    "PATH_ROLES",
    "SHELLS",
    "CommandModel",
    "ContentWrite",
    "PathAccess",
    "ProgramLanguage",
    "Role",
    "ScriptRun",
    "ShellAnalysis",
    "analyze_command",
    "analyze_program",
    "decode_ansi_c",
    "handled_commands",
    "shebang_language",
    "split_options",
]
