"""The target skill's own command vocabulary, read from its SKILL.md, for the criteria compiler.

Authors of a skill's cases name its commands by bare word: "the skill ran stats or participants",
"used --participant". Such a word is exact only because the skill documents it as one of its
commands: a subcommand or a long flag of one of its scripts, shown in a code block
(`python3 <skill>/scripts/tool.py stats <id>`) or in a row of a table whose first column is
headed "Subcommand" or "Command" (`| \\`stats <id>\\` | ... |`, when the skill documents one script
only). A word documented for two scripts names neither, and nothing else in SKILL.md (prose, other
tables) adds a word: a bare word is a literal only when the skill gives it exactly one meaning.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from evaluator.evidence.triggers import skill_name
from evaluator.judge.literal_checks import SCRIPT_SUFFIXES

TermRole = Literal["subcommand", "flag"]


@dataclass(frozen=True)
class Term:
    """A bare word the skill documents: a subcommand or a long flag of one of its scripts."""

    word: str
    role: TermRole
    script: str  # the script as SKILL.md writes it, without its skill-folder prefix
    # A flag's subcommands: those the skill shows it with (on one command line, or in the row
    # of the subcommand's table).
    subcommands: frozenset[str] = frozenset()


@dataclass(frozen=True)
class DefinedPhrase:
    """What the skill says one of its flags does, in a sentence of its own: "Omit `--chat-id`
    to search all chats." (`present` False), "Pass `--attachments` to include attached files."
    (`present` True): the verb phrase names that subcommand run without (with) the flag."""

    verb: str  # the phrase's verb as the skill writes it ("search")
    objects: tuple[str, ...]  # the rest of the phrase ("all", "chats")
    subcommand: str
    script: str
    flag: str
    present: bool
    sentence: str  # the skill's sentence, as written (shown by `explain`)

    def meaning(self) -> tuple[str, str, bool]:
        return (self.subcommand, self.flag, self.present)


@dataclass(frozen=True)
class SkillVocabulary:
    terms: dict[str, Term] = field(default_factory=dict)
    # The skill's own files, relative to its folder (`SKILL.md`, `references/x.md`): what a file
    # named without backticks ("reads quickstarts.md", "the README") can be resolved against.
    files: tuple[str, ...] = ()
    # The names the agents go by ("claude code", "codex"), lower-case, handed in by a caller that
    # may know the adapters (the judge may not): "Codex ran `make`" names the session's one agent.
    agents: tuple[str, ...] = ()
    # The environment variables the case declares (`CaseSetup.declared_variables`), by name: what
    # a phrase like "the app certificate" can name (`grammar._Parser.declared_variable`). Data
    # of the case, added per case by `with_variables`.
    variables: tuple[str, ...] = ()
    # Each subcommand's row of the skill's command table, split into sentences: what its flags
    # do in the skill's words ("`--since/--until` count only within a window.").
    documented: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The verb phrases the skill defines by a flag ("Omit `--chat-id` to search all chats"), by
    # their words; a phrase defined twice differently holds both definitions (it names neither).
    phrases: dict[tuple[str, ...], tuple[DefinedPhrase, ...]] = field(default_factory=dict)
    # The flags the skill shows with a value (`--since <date>`, `--participant <name>`): such a
    # flag may be given as `--since=2026-01-01`.
    valued: frozenset[str] = frozenset()
    # The skill's own name (its SKILL.md's `name:`, else its folder's), lower-case: what "the
    # `loop-builder` skill is invoked" must name to be a claim about the skill under test.
    skill: str | None = None

    def term(self, word: str) -> Term | None:
        return self.terms.get(word)

    def files_named(self, name: str) -> list[str]:
        """The skill's files `name` names: the one at that path relative to the skill, else
        each it is the whole last parts of (`quickstarts.md`, `convoai/README.md`; never `a.md`
        for `data.md`)."""
        name = name.removeprefix("./")
        if name in self.files:  # its path in the skill: `SKILL.md` is the skill's own
            return [name]
        return [f for f in self.files if f.endswith("/" + name)]


def with_variables(
    vocabulary: SkillVocabulary | None, variables: tuple[str, ...]
) -> SkillVocabulary | None:
    """The skill's vocabulary with a case's declared variables; as it was when there are none."""
    if not variables:
        return vocabulary
    if vocabulary is None:
        return SkillVocabulary(variables=variables)
    return replace(vocabulary, variables=variables)


# Enough for any skill; a folder with more is no skill's own (a checkout, a cache).
MAX_SKILL_FILES = 2000


def skill_files(folder: Path) -> tuple[str, ...]:
    """The files under a skill's folder, relative to it, hidden folders and symlinked folders not
    entered; none when there are more than `MAX_SKILL_FILES` (the walk stops there)."""
    found: list[str] = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        base = Path(root).relative_to(folder)
        for name in names:
            if (Path(root) / name).is_file():
                found.append((base / name).as_posix())
        if len(found) > MAX_SKILL_FILES:
            return ()
    return tuple(sorted(found))


_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
_SUBCOMMAND = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_FLAG = re.compile(r"--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_TABLE_HEADS = frozenset({"subcommand", "subcommands", "command", "commands"})


def _script(word: str) -> str | None:
    """`<skill>/scripts/tool.py` → `scripts/tool.py`; None for what is no script file."""
    word = word.strip("'\"")
    if not word.endswith(SCRIPT_SUFFIXES) or any(c in word for c in "*?$"):
        return None
    parts = [p for p in word.split("/") if p and p != "."]
    while parts and (parts[0].startswith("<") or parts[0].startswith("{") or parts[0] == ".."):
        parts = parts[1:]  # `<skill>/`, `{baseDir}/`: where the skill lies, not the script
    return "/".join(parts) or None


def _command_lines(text: str) -> list[str]:
    """The lines of the fenced code blocks, a line continued by `\\` joined to the next."""
    lines: list[str] = []
    for block in _FENCE.finditer(text):
        pending = ""
        for line in block.group(1).splitlines():
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1] + " "
                continue
            lines.append(pending + line)
            pending = ""
        if pending:
            lines.append(pending)
    return lines


def _table_words(text: str) -> list[tuple[str, list[str], str, set[str]]]:
    """The first word of each row of a table headed "Subcommand" (or "Command"), with the long
    flags the row names (`--since/--until` is two), the row's other cells' text and the flags it
    shows with a value (`--participant <name>`)."""
    found: list[tuple[str, list[str], str, set[str]]] = []
    heading = False
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if "|" in line else []
        if not cells:
            heading = False
            continue
        if re.fullmatch(r":?-{3,}:?", cells[0]):
            continue
        if cells[0].lower() in _TABLE_HEADS:
            heading = True
            continue
        literal = re.fullmatch(r"`([^`]+)`", cells[0])
        if heading and literal:
            first = literal.group(1).split()[0]
            if _SUBCOMMAND.fullmatch(first):
                snippets = re.findall(r"`([^`]+)`", line)
                row = " ".join(snippets)
                flags = [f for f in re.split(r"[\s/=]+", row) if _FLAG.fullmatch(f)]
                valued = {f for s in snippets for f in _valued_flags(s.split())}
                found.append((first, flags, " ".join(cells[1:]), valued))
    return found


def _valued_flags(words: list[str]) -> set[str]:
    """The flags these words show with a value: `--since <date>`, `--out=<path>`."""
    found = set()
    for at, word in enumerate(words):
        flag, equals, value = word.partition("=")
        if not _FLAG.fullmatch(flag):
            continue
        following = value if equals else (words[at + 1] if at + 1 < len(words) else "")
        if following.strip("'\"").startswith("<"):
            found.add(flag)
    return found


# "Omit `--chat-id` to search all chats.": the skill says what leaving out (giving) a flag does.
_DEFINING = re.compile(
    r"\b(?P<how>Omit|omit|Pass|pass|Use|use)\s+`(?P<flag>--[a-z][a-z0-9-]*)`\s+to\s+"
    r"(?P<phrase>[a-z]+(?: [a-z]+){1,3})\s*(?:[.;]|$)"
)


def _sentences(text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in re.split(r"(?<=[.;])\s+", text) if p.strip())


def _defined_phrases(
    skill_md: str, rows: dict[str, str], terms: dict[str, Term]
) -> dict[tuple[str, ...], tuple[DefinedPhrase, ...]]:
    """The phrases the skill defines by a flag: in a row of its command table (of that row's
    subcommand), or in its prose (of the one subcommand it shows the flag with)."""
    prose = _FENCE.sub("", skill_md)
    places: list[tuple[str, str | None]] = [(row, word) for word, row in rows.items()]
    places += [(line, None) for line in prose.splitlines() if not line.lstrip().startswith("|")]
    found: dict[tuple[str, ...], list[DefinedPhrase]] = {}
    for text, row_word in places:
        for sentence in _sentences(text):
            for match in _DEFINING.finditer(sentence):
                flag = terms.get(match["flag"])
                subcommand = row_word
                if subcommand is None and flag is not None and len(flag.subcommands) == 1:
                    (subcommand,) = flag.subcommands
                command = terms.get(subcommand or "")
                if flag is None or command is None or command.role != "subcommand":
                    continue
                if flag.script != command.script:
                    continue
                verb, *objects = match["phrase"].split()
                defined = DefinedPhrase(
                    verb,
                    tuple(objects),
                    command.word,
                    command.script,
                    flag.word,
                    match["how"].lower() != "omit",
                    sentence,
                )
                known = found.setdefault((verb, *objects), [])
                if all(d.meaning() != defined.meaning() for d in known):
                    known.append(defined)
    return {words: tuple(defined) for words, defined in found.items()}


def read_vocabulary(skill_md: str) -> SkillVocabulary:
    """The terms SKILL.md documents, each naming one script."""
    meanings: dict[str, set[tuple[TermRole, str]]] = {}
    shown_with: dict[str, set[str]] = {}  # flag → the subcommands it is shown with

    def add(word: str, role: TermRole, script: str) -> None:
        meanings.setdefault(word, set()).add((role, script))

    def add_flags(flags: list[str], script: str, subcommand: str | None) -> None:
        for flag in flags:
            add(flag, "flag", script)
            if subcommand is not None:
                shown_with.setdefault(flag, set()).add(subcommand)

    scripts: set[str] = set()
    rows: dict[str, str] = {}
    valued: set[str] = set()  # flags shown with a value
    for line in _command_lines(skill_md):
        words = line.split()
        for at, word in enumerate(words):
            script = _script(word)
            if script is None:
                continue
            scripts.add(script)
            rest: list[str] = []
            for later in words[at + 1 :]:
                if later in ("|", "&&", "||", ";", "#") or later.startswith("#"):
                    break  # another command, or a comment
                rest.append(later)
            subcommand = rest[0] if rest and _SUBCOMMAND.fullmatch(rest[0]) else None
            if subcommand is not None:
                add(subcommand, "subcommand", script)
            flags = [w.split("=", 1)[0] for w in rest]
            add_flags([f for f in flags if _FLAG.fullmatch(f)], script, subcommand)
            valued.update(_valued_flags(rest))
            break
    if len(scripts) == 1:  # a table of subcommands can only be of the one script
        (only,) = scripts
        for word, flags, row, shown_valued in _table_words(skill_md):
            add(word, "subcommand", only)
            add_flags(flags, only, word)
            valued.update(shown_valued)
            rows[word] = f"{rows[word]} {row}" if word in rows else row
    terms = {
        word: Term(word, role, script, frozenset(shown_with.get(word, ())))
        for word, uses in meanings.items()
        if len(uses) == 1
        for role, script in uses
    }
    rows = {word: row for word, row in rows.items() if word in terms}
    documented = {word: _sentences(row) for word, row in rows.items()}
    phrases = _defined_phrases(skill_md, rows, terms)
    return SkillVocabulary(
        terms,
        documented=documented,
        phrases=phrases,
        valued=frozenset(f for f in valued if f in terms),
    )


def skill_vocabulary(path: Path | None, agents: tuple[str, ...] = ()) -> SkillVocabulary | None:
    """The vocabulary of the skill at `path` (its folder or its SKILL.md), with the files of its
    folder and the names the agents go by (`agents`, from `adapters.agent_names`); None when
    there is none of these."""
    names = tuple(name.lower() for name in agents)
    skill_md = None if path is None else (path / "SKILL.md" if path.is_dir() else path)
    try:
        text = skill_md.read_text(encoding="utf-8") if skill_md is not None else ""
    except (OSError, UnicodeDecodeError):
        skill_md, text = None, ""
    read = read_vocabulary(text) if skill_md is not None else SkillVocabulary()
    files = skill_files(skill_md.parent) if skill_md is not None else ()
    if not (read.terms or files or names):
        return None
    skill = skill_name(skill_md.parent).lower() if skill_md is not None else None
    return replace(read, files=files, agents=names, skill=skill)
