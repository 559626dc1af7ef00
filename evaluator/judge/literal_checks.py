"""The checks a backticked literal stands for: a path read or written, a command or script run.

Shared by the sentence templates (`criteria.py`) and the grammar (`grammar.py`), so a literal
means the same check whichever of the two accounted for its sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from evaluator.contract.models import (
    AllOfCheck,
    AnyOfCheck,
    Check,
    CommandRanCheck,
    ScriptRanCheck,
    UrlFetchedCheck,
)
from evaluator.evidence.fetches import normal_url
from evaluator.evidence.shell import handled_commands
from evaluator.judge.command_pattern import command_pattern, leading_options

# Programs a session runs by name, beside the commands the shell analysis models.
_PROGRAM_NAMES = (
    "npm npx pnpm yarn bun deno node python python3 pip pip3 uv uvx poetry pytest tox nox ruff"
    " mypy black flake8 eslint prettier tsc jest vitest make cmake cargo rustc go gradle mvn"
    " dotnet git docker kubectl helm terraform"
)
PROGRAMS = frozenset(_PROGRAM_NAMES.split())
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def known_program(name: str) -> bool:
    return name in PROGRAMS or name in handled_commands()


def tool_name(literal: str) -> bool:
    """A bare identifier no known program bears (`find_customer`, `mcp__crm__search`): what a
    skill "calls" may as well be a tool or a function called by name as a shell command. No
    path, no space, no extension."""
    return _IDENTIFIER.fullmatch(literal) is not None and not known_program(literal)


def combine(checks: list[Check], join: str) -> Check:
    """One check, or `any_of` / `all_of` over several ("any" or "all")."""
    if len(checks) == 1:
        return checks[0]
    return AnyOfCheck(operands=checks) if join == "any" else AllOfCheck(operands=checks)


def directory_glob(path: str) -> str:
    return path.rstrip("/") + "/*"


# git's own options before its subcommand (`git -C repo clone ...`), for patterns that name git
# and its subcommand themselves (criteria.py's `git clone` of a URL).
GIT_OPTIONS = leading_options("git")


def literal_command(command: str) -> str:
    """A command literal as a whole word: `rg` must not match `cargo`, a path may follow a `/`.
    A subcommand is one whatever the program's own options before it (`git -c user.name=x
    commit` ran `git commit`, `npm --prefix app publish` ran `npm publish`), and short flags
    are one in any cluster and order (`rm -fr`, `rm -r -f` ran `rm -rf`): command_pattern.py."""
    return command_pattern(command)


def equivalent_is_exact(predicate: str, values: Sequence[str]) -> bool:
    """ "`x.sh` (or equivalent)": a script run in any way (`./x.sh`, `bash x.sh`) is the same act,
    which `script_ran` sees whole. Any other "or equivalent" is open: `npm run dev` is also
    `pnpm --dir app dev`, `npx next dev` or the `dev` script's own command, `pytest` is also
    `python -m pytest`, an equivalent file is another file; a check of the listed ones would fail
    a session that did the equivalent, so the sentence goes to the model."""
    return (
        predicate == "command"
        and bool(values)
        and all(script_path(v.strip().partition(" ")[0]) for v in values)
    )


SCRIPT_SUFFIXES = (".py", ".sh", ".bash", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php")


def script_path(word: str) -> bool:
    """`scripts/fetch_docs.sh`, `./bin/setup`, `tool.py`: a file that is executed, not a
    program name (`pnpm`, `pytest`)."""
    return (
        bool(word)
        and not any(ch.isspace() for ch in word)
        and not word.startswith("-")
        and (word.endswith(SCRIPT_SUFFIXES) or "/" in word.strip("/"))
    )


# Authors do not always backtick a path: a word shaped like one is one.
FILE_EXTENSIONS = frozenset(
    [
        "md",
        "mdx",
        "txt",
        "rst",
        "json",
        "jsonl",
        "yaml",
        "yml",
        "toml",
        "ini",
        "cfg",
        "conf",
        "env",
        "lock",
        "xml",
        "csv",
        "tsv",
        "sql",
        "html",
        "htm",
        "css",
        "scss",
        "py",
        "pyi",
        "sh",
        "bash",
        "zsh",
        "js",
        "mjs",
        "cjs",
        "jsx",
        "ts",
        "tsx",
        "rb",
        "go",
        "rs",
        "java",
        "kt",
        "swift",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "cs",
        "php",
        "pl",
        "lua",
        "r",
        "ipynb",
        "avsc",
        "proto",
        "gradle",
        "dockerfile",
    ]
)
_EXTENSION = re.compile(r"[\w.*-]*[\w*-]\.([A-Za-z][A-Za-z0-9]{0,9})")
_PRODUCT = re.compile(r"[A-Z][A-Za-z0-9]*\.js")  # Next.js, Node.js: names, not files


_HOST_LITERAL = re.compile(
    r"(?:\*\.)?(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}|localhost|\d{1,3}(?:\.\d{1,3}){3}",
    re.IGNORECASE,
)


def fetch_target(literal: str) -> UrlFetchedCheck | None:
    """A literal a fetch names exactly: a URL with its scheme (`https://docs.x.io/a`), or a host
    (`docs.x.io`, `*.x.io` for any host below it, `127.0.0.1`). A file name (`notes.md`), a host
    with a port or a path but no scheme (`docs.x.io/a`: http or https?) names none."""
    if "://" in literal:
        if normal_url(literal) is None or "*" in literal:
            return None
        return UrlFetchedCheck(kind="url_fetched", url=literal)
    if _HOST_LITERAL.fullmatch(literal) and not path_shaped(literal):
        return UrlFetchedCheck(kind="url_fetched", host=literal.lower())
    return None


def path_shaped(word: str) -> bool:
    """`quickstarts.md`, `.env.local`, `references/rtc/`, `docs/*.md`: a word that names a file
    or folder, whether or not its author backticked it; not `Next.js`, `audio/video`, `/join`."""
    if not word or "://" in word or word.startswith(("-", "$", "@")):
        return False
    # `loops/<loop-name>/`, `docs/<topic>.md`: a whole path part in angle brackets is the
    # author's placeholder for a name, shaped as any name there would be (`<b>` is no path).
    word = re.sub(r"(?:^|(?<=/))<[A-Za-z][\w-]*>(?=$|[/.])", "x", word)
    if "<" in word or ">" in word:
        return False
    if not re.fullmatch(r"[\w./*~+@-]+", word) or not re.search(r"[A-Za-z]", word):
        return False
    name = word.rstrip("/").rsplit("/", 1)[-1]
    extension = _EXTENSION.fullmatch(name)
    if extension and extension.group(1).lower() in FILE_EXTENSIONS and not _PRODUCT.fullmatch(name):
        return True
    if "/" not in word:  # `.env`, `.gitignore`: a dotfile
        return bool(re.fullmatch(r"\.[a-z][\w.-]*", word))
    # `references/rtc/`, `convoai-restapi/*`, `./bin/setup`: not "audio/video" or "/join"
    return word.endswith("/") or "*" in word or word.startswith(("./", "../", "~/", "."))


def flag_shaped(word: str) -> bool:
    """`--dry-run`, `--since`: a long option, as exact as a backticked one (a short `-k` is
    left a word: a hyphen opens many a word of prose)."""
    return re.fullmatch(r"--[a-z][a-z0-9]*(?:-[a-z0-9]+)*", word) is not None


def command_check(literal: str, equivalent: bool) -> Check:
    """A command literal: a script must really run (naming it in `cat` is not running it), with
    its arguments when the literal gives them; any other command matches by its text."""
    first, _, rest = literal.strip().partition(" ")
    if script_path(first):
        script = ScriptRanCheck(kind="script_ran", path=first.removeprefix("./"))
        if not rest.strip() or equivalent:
            return script  # "or equivalent": running the script in any way is the same act
        return AllOfCheck(
            operands=[
                script,
                CommandRanCheck(kind="command_ran", pattern=literal_command(literal)),
            ]
        )
    return CommandRanCheck(kind="command_ran", pattern=literal_command(literal))


def unique(checks: list[Check]) -> list[Check]:
    seen: dict[str, Check] = {}
    for check in checks:
        seen.setdefault(check.model_dump_json(), check)
    return list(seen.values())


def skill_command_without(script: str, subcommand: str, flag: str, *, abbreviated: bool) -> Check:
    """The skill's `script` run with `subcommand` and without `flag` on that command. With
    `abbreviated`, any prefix of the flag counts as the flag (`--chat` is `--chat-id` to a
    Python `argparse` script), so a run without it is surely one without the flag; without, only
    the flag as written does (a run that may have had it abbreviated counts as one without it)."""
    (run,) = leaf_patterns(skill_command_check(script, subcommand, "subcommand"))
    name = flag.removeprefix("--")
    spelled = [name[:k] for k in range(len(name), 0, -1)] if abbreviated else [name]
    options = "|".join(re.escape(p) for p in spelled)
    return ScriptRanCheck(
        kind="script_ran", path=script, command=run, without=rf"(?:^|\s)--(?:{options})(?:$|[\s=])"
    )


def leaf_patterns(check: Check) -> list[str]:
    """The `command` patterns of a `script_ran` check (or of an `all_of` of them)."""
    if isinstance(check, ScriptRanCheck):
        return [check.command] if check.command is not None else []
    return [p for c in getattr(check, "operands", []) for p in leaf_patterns(c)]


# The script's own options before its subcommand (`imessage.py --db chat.db stats 12`: argparse
# reads the parser's options there), each with its value when the next word is no option. Which
# options take a value is the script's to say, not the skill's, so a word after an option may be
# its value; the checked subcommand follows it either way. The look-alike this leaves: a flag
# whose next word is the real subcommand, then the checked word as that subcommand's argument
# (`tool.py --verbose window stats`). Words stop at `;`, `|` and `&`: this command's options.
_LEADING_OPTIONS = r"(?:\s+-[^\s;|&]*(?:\s+[^\s;|&-][^\s;|&]*)?)*"


def skill_command_check(
    script: str,
    word: str,
    role: str,
    arguments: tuple[str, ...] = (),
    valued: frozenset[str] = frozenset(),
) -> Check:
    """A subcommand or flag the skill documents for its `script`: the script ran, and one of its
    command lines holds the word where the skill puts it (a subcommand after the script and any
    of the script's own options, a flag anywhere after it), then each argument; not past `;`, `|`, `&` or a newline. A flag in
    `valued` (the skill shows it with a value: `--since <date>`) may take it after `=`."""
    name = script.rstrip("/").rsplit("/", 1)[-1]
    line = rf"(?:^|[\s/'\"]){re.escape(name)}['\"]?"
    if role == "subcommand":
        line += rf"{_LEADING_OPTIONS}\s+['\"]?{re.escape(word)}['\"]?"
    else:
        line += rf"\s(?:[^;|&\n]*\s)?{re.escape(word)}"
    # The word ends there: `stats.json` is no `stats`, and `--all=false` is another argument than
    # `--all` (as for "with" arguments: `grammar._with_argument`).
    end = r"['\"]?(?:$|[\s;|&)])"
    # `--since=2026-01-01` is `--since 2026-01-01` to the program when the flag takes a value.
    end_valued = r"['\"]?(?:$|[\s;|&)=])"
    patterns = [line + (end_valued if word in valued else end)] if not arguments else []
    for argument in arguments:
        # Each word of the argument may be quoted (`-k 'smoke'` is `-k smoke` to the program).
        words = r"\s+".join(rf"['\"]?{re.escape(w)}['\"]?" for w in argument.split())
        ends = end_valued if argument in valued else end
        patterns.append(rf"{line}\s(?:[^;|&\n]*\s)?{words}{ends}")
    # The command that ran the script holds them: not a run of it with other words beside a line
    # that only names them (`echo tool.py stats`).
    checks: list[Check] = [
        ScriptRanCheck(kind="script_ran", path=script, command=p) for p in patterns
    ]
    return combine(checks, "all")
