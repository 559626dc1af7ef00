"""The criteria compiler: prose sentences of upstream cases → structured checks, with provenance.

A sentence compiles only when every word is accounted for. The backticked literals are set
aside, a known lead-in ("The accepted session evidence", "The final answer", "会话证据") names
what the sentence is about and an optional negation ("never", "does not", "未") is read; then
the grammar (`grammar.py`) parses an English sentence, and the templates below match the rest
of a Chinese one (and the two English shapes the grammar has no production for: a `git clone`
target and a parenthesised list of commands). Anything left over (a judgement of meaning, a live
check such as "the page loads") means the sentence does not compile, and an entry with such a
sentence goes to the model judge whole, unless a part that compiled already fails it
(`judge/parts.py`): a part never passes an entry alone.

Around one sentence: "If X, (then) Y" (`any_of: [not X, Y]`), "Either X, or Y" (`any_of`) and
an example in parentheses ("(e.g. ...)", dropped) compile only when each part compiles alone.

Backticked literals are the exact parts: paths, globs, commands, texts. Lists of them compile to
`any_of` ("`A` or `B`", "or equivalent") or `all_of` ("`A` and `B`"); a list mixing both is
not exact and does not compile.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import yaml

from evaluator.contract.models import (
    PATTERN_FIELDS,
    AllOfCheck,
    AnyOfCheck,
    AssertionEntry,
    Check,
    CommandRanCheck,
    FileReadCheck,
    FileWrittenCheck,
    FinalAnswerContainsCheck,
    FinalAnswerUrlCheck,
    NotCheck,
    ReadBeforeCheck,
    ScriptRanCheck,
    WorkspaceFileContainsCheck,
    WorkspaceFileExistsCheck,
)
from evaluator.judge.grammar import PREDICATES, TWICE_DEFINED, parse_sentence, words
from evaluator.judge.literal_checks import (
    GIT_OPTIONS,
    PROGRAMS,
    combine,
    command_check,
    directory_glob,
    equivalent_is_exact,
    fetch_target,
    flag_shaped,
    path_shaped,
    unique,
)
from evaluator.judge.pattern_excerpt import excerpt
from evaluator.judge.skill_vocabulary import SkillVocabulary
from evaluator.judge.verdict import Provenance, SentenceRole
from evaluator.vocabulary import Polarity

# --------------------------------------------------------------------------- sentence → skeleton

SLOT = "\u27e8{}\u27e9"  # ⟨0⟩: the place of the first backticked literal
SLOT_RE = r"\u27e8\d+\u27e9"
BACKTICKED = re.compile(r"`([^`]+)`")
CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class Sentence:
    """A criterion with its literals replaced by slots, lower-cased, its lead-in removed."""

    text: str
    literals: tuple[str, ...]
    subject: str  # "session", "answer" or "workspace": what the lead-in named
    negated: bool
    chinese: bool


# Whatever the sentence is about; only "answer" and "workspace" change what a rule means.
# Whose answer: the session's one agent ("the assistant's answer", "its final message").
_WHOSE = r"(?:(?:the )?(?:agent|assistant|model)'s |its )"
LEAD_INS: tuple[tuple[str, str], ...] = (
    (
        rf"(?:in )?(?:the )?{_WHOSE}?final (?:answer|response|reply|message)(?: text)?",
        "answer",
    ),
    (rf"(?:in )?(?:the |{_WHOSE})(?:answer|response|reply)", "answer"),
    (r"final-answer\.txt", "answer"),
    (r"(?:in )?the (?:attempt )?workspace(?: files)?", "workspace"),
    (
        # "A complete accepted trace": an incomplete session is never judged (it is blocked).
        r"(?:in )?(?:the |an? )?(?:complete |full )?(?:accepted )?(?:task |agent |agent's |session )?"
        r"(?:evidence|session|transcript|trace|rollout|log)(?: evidence)?"
        r"(?: \(accepted-session\.json\))?",
        "session",
    ),
    (r"accepted-session\.json", "session"),
    (r"the (?:recorded )?tool calls", "session"),
    (r"the agent", "session"),
    (r"there is evidence(?: in the session)?(?: that)?", "session"),
    (r"there is", "session"),
)
CJK_LEAD_INS: tuple[tuple[str, str], ...] = (
    (r"最终(?:回答|答复|回复|答案)(?:中)?", "answer"),
    (r"(?:在)?工作区(?:中|里)?", "workspace"),
    (r"(?:已接受的)?(?:会话)?(?:证据|记录|会话)(?:中)?(?:显示)?", "session"),
    (r"(?:智能体|代理|助手)", "session"),
)
NEGATIONS = (
    r"(?:does|did|do) not (?:show )?(?:any )?",
    r"(?:doesn't|didn't|don't) (?:show )?(?:any )?",
    r"never (?:shows? )?(?:any )?",
    r"shows? no ",
    r"contains? no ",
    r"has no ",
    r"is no ",
    r"no ",
    r"without (?:any )?",
    r"(?:answers|responds|replies|proceeds|finishes|routes|completes the task) without (?:any )?",
)
_IN_THE_ANSWER = re.compile(rf" in (?:the |{_WHOSE})(?:final )?(?:answer|response|reply|message)$")


CJK_NEGATIONS = (r"从未", r"并未", r"没有", r"未", r"不")


_TRAILING = ".,;:!?)\"'"
SkillFiles = SkillVocabulary | None  # the target skill, whose files bare names resolve against


# A file named by its conventional name alone ("the README"): resolved only against the skill.
_NAMED_FILES = frozenset({"README"})


def _mark_bare_paths(sentence: str, files: SkillFiles = None) -> str:
    """The sentence with each unquoted path-shaped word backticked, as its author meant it.
    With the target skill's files known, a word naming exactly one of them is that file (its
    path in the skill); one naming several is left a word, and refuses: which one was meant? A
    name no file of the skill has is kept as written (a workspace file: `app.py`)."""
    parts = re.split(r"(`[^`]*`)", sentence)
    for index in range(0, len(parts), 2):  # the parts outside backticks
        words = parts[index].split(" ")
        for at, word in enumerate(words):
            lead = "(" if word.startswith("(") else ""
            core = word[len(lead) :]
            stripped = core.rstrip(_TRAILING)
            if stripped.endswith("."):
                stripped = stripped.rstrip(".")
            named = path_shaped(stripped)
            if files is not None and (named or stripped in _NAMED_FILES):
                matches = files.files_named(stripped) if named else _conventional(files, stripped)
                if len(matches) > 1:
                    continue
                if matches:
                    stripped, core = matches[0], matches[0] + core[len(stripped) :]
                    named = True
            if named or flag_shaped(stripped):  # `--since` too: a long option is exact
                words[at] = f"{lead}`{stripped}`{core[len(stripped) :]}"
        parts[index] = " ".join(words)
    return "".join(parts)


# A bare command opening with a program a session runs by name (`literal_checks.PROGRAMS`),
# after "runs" ("ran", "executes", "invokes", denied or not), is read as backticked when its
# boundary is exact: it ends the sentence, at most five words follow the program, and none of
# them reads as prose (`PROSE_WORDS`, an adverb). "Runs npm test" is `npm test`; "runs npm test
# on the new files", "ran pytest successfully" or "runs git status then commits" stay words and
# refuse.
PROSE_WORDS = words(
    "the a an to on in at of for with without from into onto by via against and or but nor then"
    " than before after until while when whenever once twice again first also only just it its"
    " their this that these those each every all any some no not is are was were be been being"
    " as so if unless which who whose where how what why because over under per between through"
    " instead rather still already tests files file code output result results changes sure"
    " everything nothing something pass passes passed work works fail fails succeed succeeds"
)
_BARE_RUN = re.compile(
    r"(?P<lead>(?:the (?:coding |ai )?(?:agent|assistant|model) )?"
    r"(?:(?:never|does not|did not|doesn't|didn't) )?"
    r"(?:run|runs|ran|execute|executes|executed|invoke|invokes|invoked) )"
    r"(?P<command>[^\s`]+(?: [^\s`]+){0,5})",
    re.I,
)
_COMMAND_WORD = re.compile(r"[A-Za-z0-9._:/=@+-]+")


def _mark_bare_command(sentence: str) -> str:
    """The sentence with its one bare command run backticked, when the boundary is exact."""
    if "`" in sentence:
        return sentence
    text = sentence.strip()
    end = ""
    if re.search(r"\w\.$", text):  # the sentence's full stop, not a path's dots (`./...`)
        text, end = text[:-1], "."
    match = _BARE_RUN.fullmatch(text)
    if match is None:
        return sentence
    program, *rest = match.group("command").split(" ")
    if program not in PROGRAMS:
        return sentence
    for word in rest:
        if (
            not _COMMAND_WORD.fullmatch(word)
            or word.lower() in PROSE_WORDS
            or word.lower().endswith("ly")
        ):
            return sentence
    return f"{match.group('lead')}`{match.group('command')}`{end}"


def _conventional(files: SkillVocabulary, name: str) -> list[str]:
    """ "README": the skill's files whose name is README, with any extension."""
    return [f for f in files.files if re.fullmatch(rf"(?:.*/)?{name}(?:\.\w+)?", f)]


def resolutions(sentence: str, files: SkillFiles) -> list[tuple[str, list[str]]]:
    """Each file name written without backticks, with the skill's files it names (for
    `explain`: one is the literal, several refuse)."""
    if files is None:
        return []
    found = []
    for part in re.split(r"`[^`]*`", sentence):
        for word in part.split():
            stripped = word.lstrip("(").rstrip(_TRAILING).rstrip(".")
            if path_shaped(stripped):
                found.append((stripped, files.files_named(stripped)))
            elif stripped in _NAMED_FILES:
                found.append((stripped, _conventional(files, stripped)))
    return [(name, matches) for name, matches in found if matches]


# What a name of one of the skill's files can be resolved for: its reads and runs. A file written
# or found in the workspace is the agent's, whatever the skill ships under the same name.
_SKILL_FILE_PREDICATES = frozenset({"consultation", "read-first", "read-before", "command"})


def _resolved_skeleton(sentence: str, vocabulary: SkillVocabulary | None) -> Sentence | None:
    """The skeleton with file names resolved against the skill's files when the sentence reads
    or runs them (as the grammar recognises its predicate), else with names as written."""
    agents = vocabulary.agents if vocabulary is not None else ()
    plain = _skeleton(sentence, agents=agents)
    if vocabulary is None or not vocabulary.files or plain is None or plain.chinese:
        return plain
    if not resolutions(sentence, vocabulary):
        return plain
    parsed = parse_sentence(plain.text, plain.literals, plain.subject, plain.negated, vocabulary)
    if parsed.predicate not in _SKILL_FILE_PREDICATES:
        return plain
    return _skeleton(sentence, vocabulary, agents)


def _agents_answer(text: str, agents: tuple[str, ...]) -> str:
    """ "Codex's final answer": the session's one agent's answer, named by its product."""
    for name in sorted(agents, key=len, reverse=True):
        text = re.sub(
            rf"(?<![\w-]){re.escape(name)}'s (?=(?:final )?(?:answer|response|reply|message)\b)",
            "the agent's ",
            text,
        )
    return text


def _skeleton(
    sentence: str, files: SkillFiles = None, agents: tuple[str, ...] = ()
) -> Sentence | None:
    sentence = _mark_bare_paths(_mark_bare_command(sentence), files)
    literals = tuple(m.group(1).strip() for m in BACKTICKED.finditer(sentence))
    counter = iter(range(len(literals)))
    text = BACKTICKED.sub(lambda _m: SLOT.format(next(counter)), sentence)
    chinese = bool(CJK.search(text))
    text = text.strip().rstrip(".。!！;；").strip()
    if chinese:
        text = re.sub(r"\s+", "", text).replace("，", ",").replace("、", ",")
    else:
        text = _agents_answer(re.sub(r"\s+", " ", text).lower(), agents)
    subject = "session"
    for pattern, named in CJK_LEAD_INS if chinese else LEAD_INS:
        match = re.match(pattern + ("" if chinese else r"\b ?"), text)
        if match and match.end() > 0:
            text, subject = text[match.end() :].lstrip(" ,:"), named
            break
    negated = False
    for pattern in CJK_NEGATIONS if chinese else NEGATIONS:
        match = re.match(pattern, text)
        if match:
            text, negated = text[match.end() :], True
            break
    if not chinese and subject == "session":
        # "Mentions `retry` in the (final) answer": the answer is what the sentence is about.
        answer = _IN_THE_ANSWER.search(text)
        if answer is not None:
            text, subject = text[: answer.start()], "answer"
    if not text:
        return None
    return Sentence(text, literals, subject, negated, chinese)


# --------------------------------------------------------------------------- literal lists

OBJECTS = rf"(?P<objects>{SLOT_RE}(?:(?:,? ?(?:or|and|,)| ?/) ?{SLOT_RE})*)"
CJK_OBJECTS = rf"(?P<objects>{SLOT_RE}(?:(?:或者|或|和|以及|与|及|,){SLOT_RE})*)"
CJK_OR_EQUIVALENT = r"(?P<equivalent>(?:或|或者)(?:等效|等价|类似)(?:的)?(?:命令)?)?"


@dataclass(frozen=True)
class Literals:
    values: tuple[str, ...]
    join: str  # "any" or "all"


def _literals(sentence: Sentence, objects: str) -> Literals | None:
    indexes = [int(i) for i in re.findall(r"\u27e8(\d+)\u27e9", objects)]
    between = re.sub(SLOT_RE, "|", objects).strip("|").split("|") if len(indexes) > 1 else []
    words = {w.strip(" ,") or "," for w in between}
    ors, ands = {"or", "或", "或者", "/"}, {"and", "和", "以及", "与", "及"}
    if words and words <= ors | {","} and words & ors:
        join = "any"
    elif not words or words <= ands | {","}:
        join = "all"
    else:
        return None  # "A and B or C" has no single exact meaning
    return Literals(tuple(sentence.literals[i] for i in indexes), join)


# --------------------------------------------------------------------------- rules


Builder = Callable[[Sentence, "re.Match[str]"], "Check | None"]


@dataclass(frozen=True)
class Rule:
    name: str
    subjects: tuple[str, ...]
    english: tuple[str, ...]
    chinese: tuple[str, ...]
    build: Builder

    def apply(self, sentence: Sentence) -> Check | None:
        if sentence.subject not in self.subjects:
            return None
        for template in self.chinese if sentence.chinese else self.english:
            match = re.fullmatch(template, sentence.text)
            if match:
                check = self.build(sentence, match)
                if check is not None and match.groupdict().get("neg"):  # "was never read"
                    return NotCheck(operand=check)
                return check
        return None


def _per_literal(make: Callable[[str], Check]) -> Builder:
    def build(sentence: Sentence, match: re.Match[str]) -> Check | None:
        found = _literals(sentence, match.group("objects"))
        if found is None:
            return None
        under = "under" in match.groupdict() and match.group("under") is not None
        values = [directory_glob(v) if under else v for v in found.values]
        return combine([make(v) for v in values], found.join)

    return build


def _read(path: str) -> Check:
    return FileReadCheck(kind="file_read", path=path)


def _answer_mentions(text: str) -> Check:
    return FinalAnswerContainsCheck(kind="final_answer_contains", text=text)


def _written(path: str) -> Check:
    return FileWrittenCheck(kind="file_written", path=path)


def _exists(path: str) -> Check:
    return WorkspaceFileExistsCheck(kind="workspace_file_exists", path=path)


def _commands(sentence: Sentence, match: re.Match[str]) -> Check | None:
    found = _literals(sentence, match.group("objects"))
    if found is None:
        return None
    equivalent = match.groupdict().get("equivalent") is not None
    if equivalent and found.join != "any" and len(found.values) > 1:
        return None
    if equivalent and not equivalent_is_exact("command", found.values):
        return None
    checks = unique([command_check(v, equivalent) for v in found.values])
    return combine(checks, "any" if equivalent else found.join)


def _listed_commands(sentence: Sentence, match: re.Match[str]) -> Check | None:
    """`a dev server start command (pnpm dev, npm run dev, or equivalent)`: the list is exact."""
    items = [i.strip() for i in re.split(r",|\bor\b|或", match.group("list"))]
    if any(re.fullmatch(r"(?:an? )?similar.*", i) for i in items):
        return None  # a similar command is a judgement; an equivalent one is the same command
    equivalent = any(re.fullmatch(r"(?:an? )?equivalent(?: command)?", i) for i in items)
    commands = [i for i in items if i and not re.fullmatch(r"(?:an? )?equivalent.*", i)]
    if not commands or (equivalent and not equivalent_is_exact("command", commands)):
        return None
    return combine(unique([command_check(c, equivalent) for c in commands]), "any")


def _git_clone(sentence: Sentence, match: re.Match[str]) -> Check | None:
    # "or the (equivalent) GitHub URL": a URL naming the repo holds its name; given as a
    # literal, it is one more thing the clone may target.
    objects = re.sub(REPO_NAMES + r" ?", "", match.group("objects"))
    objects = re.sub(r",? or$", "", objects.strip())
    found = _literals(sentence, objects)
    if found is None:
        return None
    checks: list[Check] = [
        CommandRanCheck(
            kind="command_ran", pattern=rf"\bgit{GIT_OPTIONS}\s+clone\b.*{re.escape(v)}"
        )
        for v in found.values
    ]
    return combine(checks, found.join)


def _slot(sentence: Sentence, match: re.Match[str], group: str) -> str:
    return sentence.literals[int(match.group(group).strip("\u27e8\u27e9"))]


def _read_before(sentence: Sentence, match: re.Match[str]) -> Check | None:
    first, then = _slot(sentence, match, "first"), _slot(sentence, match, "then")
    if match.groupdict().get("under") is not None or then.endswith("/"):
        then = directory_glob(then)
    return ReadBeforeCheck(kind="read_before", first=first, then=then)


def _read_after(sentence: Sentence, match: re.Match[str]) -> Check | None:
    """ "A file under `D` was read before `X`": a file under `D` was shown, and before `X`
    (as the grammar reads the English sentence)."""
    first, then = _slot(sentence, match, "first"), _slot(sentence, match, "then")
    return ReadBeforeCheck(kind="read_before", first=directory_glob(then), then=first)


def _read_first(sentence: Sentence, match: re.Match[str]) -> Check | None:
    first = _slot(sentence, match, "first")
    return ReadBeforeCheck(kind="read_before", first=first, then="*")


def _local_url(sentence: Sentence, match: re.Match[str]) -> Check | None:
    return FinalAnswerUrlCheck(kind="final_answer_url", local_only=match.group("local") is not None)


def _file_containing(sentence: Sentence, match: re.Match[str]) -> Check | None:
    found = _literals(sentence, match.group("objects"))
    if found is None:
        return None
    # "A file exists in the workspace containing `X`": any file the agent could have left.
    path = _slot(sentence, match, "path") if match.groupdict().get("path") else "**/*"
    checks: list[Check] = [
        WorkspaceFileContainsCheck(kind="workspace_file_contains", path=path, text=v)
        for v in found.values
    ]
    return combine(checks, found.join)


S = SLOT_RE
REPO_NAMES = r"(?:the )?(?:equivalent |official )?(?:github |git )?(?:url|repository|repo)"
CLONED = (
    rf"(?P<objects>{S}(?:(?:,? ?(?:or|and|,)| ?/) ?(?:{REPO_NAMES} ?)?{S})*(?:,? or {REPO_NAMES})?)"
)
READ_VERBS = r"(?:consult(?:s|ed|ing)?|read(?:s|ing)?|open(?:s|ed|ing)?|inspect(?:s|ed|ing)?|load(?:s|ed|ing)?|view(?:s|ed|ing)?|review(?:s|ed|ing)?|examin(?:es|ed|ing))"
READ_NOUNS = r"(?:(?:a |any )?(?:consultation|read|reading|inspection)s? of)"
CJK_READ = r"(?:读取|阅读|查看|打开|加载|查阅|参考|读)(?:了|过)?"
CJK_UNDER = r"(?P<under>(?:目录)?(?:下|中|里)(?:的)?(?:任何|任一|其他)?(?:文件|参考文件|文档))?"

RULES: tuple[Rule, ...] = (
    Rule(
        "read-before",
        ("session",),
        (),  # English: the grammar
        (
            rf"(?P<first>{S})在(?:读取|打开|查看)?(?P<then>{S}){CJK_UNDER}之前(?:被|就|已)?{CJK_READ}",
            rf"(?:在{CJK_READ}(?P<then>{S}){CJK_UNDER}之前)(?:先)?{CJK_READ}(?P<first>{S})",
            rf"先{CJK_READ}(?P<first>{S}),?(?:再|然后|之后再?){CJK_READ}(?P<then>{S}){CJK_UNDER}",
        ),
        _read_before,
    ),
    Rule(
        "read-before-reversed",
        ("session",),
        (),  # English: the grammar
        (rf"(?P<then>{S}){CJK_UNDER}(?:在)?(?P<first>{S})之前(?:被|就)?{CJK_READ}",),
        _read_after,
    ),
    Rule(
        "read-first",
        ("session",),
        (),  # English: the grammar
        (
            rf"(?:首先|最先|第一个){CJK_READ}(?:的文件是)?(?P<first>{S})",
            rf"(?P<first>{S})(?:是)?(?:被)?最先{CJK_READ}(?:的文件)?",
        ),
        _read_first,
    ),
    Rule(
        "consultation",
        ("session",),
        (),  # English: the grammar
        (
            rf"{CJK_OBJECTS}{CJK_UNDER}(?:被|已被|已)?{CJK_READ}",
            rf"(?:显示)?(?:已)?{CJK_READ}(?:过)?{CJK_OBJECTS}{CJK_UNDER}",
        ),
        _per_literal(_read),
    ),
    Rule(
        "git-clone",
        ("session",),
        (
            rf"(?:shows? |runs? |ran |contains? |includes? )?(?:an? |the )?git clone(?: command)? (?:targeting|of|for|cloning|from|that clones) {CLONED}",
        ),
        (rf"(?:运行|执行)?(?:了)?(?:克隆|git clone){CJK_OBJECTS}(?:的)?(?:命令)?",),
        _git_clone,
    ),
    Rule(
        "listed-commands",
        ("session",),
        (
            r"(?:shows? |runs? |ran |contains? |includes? )?(?:an? |the )?[a-z0-9 -]+ command \((?P<list>[^()\u27e8\u27e9]+)\)",
        ),
        (
            r"(?:运行|执行)(?:了)?[^()（）\u27e8\u27e9]*命令[(（](?P<list>[^()（）\u27e8\u27e9]+)[)）]",
        ),
        _listed_commands,
    ),
    Rule(
        "command",
        ("session",),
        (),  # English: the grammar
        (
            rf"(?:显示)?(?:运行|执行|调用|使用)(?:了|过)?{CJK_OBJECTS}{CJK_OR_EQUIVALENT}(?:命令|脚本)?",
            rf"(?:显示)?(?:包含|有)?(?:调用|运行|执行){CJK_OBJECTS}{CJK_OR_EQUIVALENT}的(?:命令|脚本)",
        ),
        _commands,
    ),
    Rule(
        "file-written",
        ("session", "workspace"),
        (),  # English: the grammar
        (
            rf"(?:写入|修改|编辑|改动)(?:了|过)?{CJK_OBJECTS}",
            rf"{CJK_OBJECTS}(?:被|已被)?(?:写入|修改|编辑|改动)(?:了|过)?",
        ),
        _per_literal(_written),
    ),
    Rule(
        "answer-local-url",
        ("answer",),
        (),  # English: the grammar
        (r"(?:包含|给出|提供|提到)(?:了)?(?:一个)?(?P<local>本地)?(?:url|URL|链接|地址)",),
        _local_url,
    ),
    Rule(
        "answer-mentions",
        ("answer",),
        (),  # English: the grammar
        (rf"(?:包含|提到|提及|列出|给出|写明|说明)(?:了)?{CJK_OBJECTS}",),
        _per_literal(_answer_mentions),
    ),
    Rule(
        "workspace-file-contains",
        ("session", "workspace"),
        (),  # English: the grammar
        (
            rf"(?:存在|有)(?:一个)?包含{CJK_OBJECTS}的文件",
            rf"(?P<path>{S})(?:中|里)?(?:包含|含有){CJK_OBJECTS}",
        ),
        _file_containing,
    ),
    Rule(
        "workspace-file-exists",
        ("session", "workspace"),
        (),  # English: the grammar
        (rf"(?:存在|有){CJK_OBJECTS}(?:文件)?", rf"{CJK_OBJECTS}(?:文件)?存在"),
        _per_literal(_exists),
    ),
)


@dataclass(frozen=True)
class Compiled:
    rule: str
    check: Check
    tree: str | None = None  # the parse, when the grammar (not a template) compiled it


def _compile_one(sentence: str, vocabulary: SkillVocabulary | None = None) -> Compiled | None:
    """One sentence's checks. English sentences are parsed by the grammar first (its parse is
    kept for `explain`); the templates remain for Chinese and for the few shapes the grammar has
    no production for (a `git clone` target, a parenthesised list of commands)."""
    condition = split_condition(sentence)
    if condition is not None:
        return _conditional(*condition, vocabulary)
    either = _split_either(sentence)
    if either is not None and not any(_opens_with_it(part) for part in either):
        # "Either X, or Y": each a whole claim; when both compile, one of them holds.
        first, second = (_compile_one(part, vocabulary) for part in either)
        if first is not None and second is not None:
            tree = " ".join(
                f"({'either' if c is first else 'or'} {c.tree or '(template ' + c.rule + ')'})"
                for c in (first, second)
            )
            one_of = AnyOfCheck(operands=[first.check, second.check])
            return Compiled(f"either {first.rule} or {second.rule}", one_of, tree)
    example = _example(sentence)
    if example is not None:
        # "includes a local URL (e.g. http://localhost:3000)": the claim is what stays once the
        # example is dropped; the example illustrates it and neither narrows nor widens it.
        rest = (sentence[: example.start()] + sentence[example.end() :]).strip()
        if _EXAMPLE.search(rest) or split_condition(rest):
            return None
        compiled = _compile_one(rest, vocabulary)
        if compiled is None:
            return None
        said = example.group("example").strip()
        tree = f"{compiled.tree or '(template ' + compiled.rule + ')'} (example dropped: {said})"
        return Compiled(compiled.rule, compiled.check, tree)
    skeleton = _resolved_skeleton(sentence, vocabulary)
    if skeleton is None:
        return None
    if not skeleton.chinese:
        parsed = parse_sentence(
            skeleton.text, skeleton.literals, skeleton.subject, skeleton.negated, vocabulary
        )
        if parsed.check is not None:
            name = parsed.predicate or "grammar"
            tree = "".join(
                f"(file {written} = {matches[0]} in the skill) "
                for written, matches in resolutions(sentence, vocabulary)
                if len(matches) == 1 and matches != [written] and matches[0] in skeleton.literals
            )
            tree += f"(subject {skeleton.subject}) " + ("(negation) " if skeleton.negated else "")
            if skeleton.negated:
                return Compiled(f"not {name}", NotCheck(operand=parsed.check), tree + parsed.text)
            return Compiled(name, parsed.check, tree + parsed.text)
    for rule in RULES:
        try:
            check = rule.apply(skeleton)
        except (IndexError, ValueError):  # a template matched slots the sentence does not have
            check = None
        if check is not None:
            if skeleton.negated:
                return Compiled(f"not {rule.name}", NotCheck(operand=check))
            return Compiled(rule.name, check)
    return None


# "If `A` was read, ...": the condition ends at the first comma outside backticks (a list in it
# leaves a part that compiles to nothing, so it refuses); "then" may open the consequence.
_IF = re.compile(r"\s*if\s+(?!and\b|only\b|not\b|needed\b|necessary\b|possible\b|any\b)", re.I)
# "it should happen after `B`": the condition's one read came after `B` (a pronoun of the act).
_HAPPENS_AFTER = re.compile(
    r"(?:it|this) (?:(?:should|must|will|is expected to|is required to) )?"
    r"(?:happen|happens|happened|come|comes|came|occur|occurs|occurred|be|was|is)"
    r"(?: (?:read|done|consulted|opened))? after (?:reading |consulting |opening )?(?P<rest>.+)",
    re.I,
)


# "(e.g. X)", "(for example X)", "(such as X)": an example of what the sentence names.
_EXAMPLE = re.compile(
    r"\s*\((?P<example>(?:e\.g\.|for example|for instance|such as)[,:]?\s+[^()]+)\)", re.I
)


def _opens_with_it(part: str) -> bool:
    """ "Either the agent read `a.md`, or it ran `x`": "it" could be the file as well as the
    agent; only a sentence of its own opens with "it" for the agent."""
    return re.match(r"\s*it\b", part, re.I) is not None


def _example(sentence: str) -> re.Match[str] | None:
    """The first parenthesised example outside backticks (one inside is part of a literal)."""
    for match in _EXAMPLE.finditer(sentence):
        outside = sentence[: match.start()].count("`") % 2 == 0
        if outside and match.group(0).count("`") % 2 == 0:  # its own literals closed in it
            return match
    return None


def _split_either(sentence: str) -> tuple[str, str] | None:
    """ "Either X, or Y" (a comma before "or", outside backticks, once) → (X, Y); a list of
    literals ("either `A` or `B`") is the grammar's."""
    match = re.match(r"\s*either\s+", sentence, re.I)
    if match is None:
        return None
    text = sentence[match.end() :]
    splits = [m for m in re.finditer(r",\s+or\s+", text) if text[: m.start()].count("`") % 2 == 0]
    if len(splits) != 1:
        return None
    first, second = text[: splits[0].start()].strip(), text[splits[0].end() :].strip()
    return None if _list_across(first, second) else (first, second)


def _list_across(before: str, after: str) -> bool:
    """Whether a comma between two parts may be inside a list of literals instead: the part
    before ends with a literal and the part after opens with one ("If the agent read `a.md`,
    `b.md` ..." : one file, then a claim about `b.md`, or a list of two?)."""
    marked_before, marked_after = _mark_bare_paths(before), _mark_bare_paths(after)
    return marked_before.rstrip().endswith("`") and marked_after.lstrip().startswith("`")


def split_condition(sentence: str) -> tuple[str, str] | None:
    """ "If X, (then) Y" → (X, Y); None for a sentence that does not open with a condition."""
    match = _IF.match(sentence)
    if match is None:
        return None
    text = sentence[match.end() :]
    quoted = False
    for at, char in enumerate(text):
        if char == "`":
            quoted = not quoted
        elif char == "," and not quoted:
            then = re.sub(r"^\s*then\s+", "", text[at + 1 :], flags=re.I).strip()
            if _list_across(text[:at], then):
                return text[:at].strip(), ""  # a list, or a claim of its own? refused
            return text[:at].strip(), then
    return text.strip(), ""  # no consequence: refused


def _conditional(
    condition: str, consequence: str, vocabulary: SkillVocabulary | None
) -> Compiled | None:
    """ "If X, (then) Y": holds when X did not happen or Y holds (`any_of: [not X, Y]`), only
    when X and Y each compile on their own. "it" in Y is X's one literal ("If `A` was read,
    it should happen after `B`": `A` was read after `B`); a condition or a consequence that is
    itself a condition, or a pronoun that names no one literal, refuses."""
    if not consequence or split_condition(consequence) or split_condition(condition):
        return None
    cause = _compile_one(condition, vocabulary)
    if cause is None:
        return None
    cause_skeleton = _resolved_skeleton(condition, vocabulary)
    named = list(cause_skeleton.literals) if cause_skeleton is not None else []
    after = _HAPPENS_AFTER.fullmatch(consequence.rstrip(" ."))
    if after is not None:
        # The act "it" names is the condition's read of one file: that read came after `B`.
        if not isinstance(cause.check, FileReadCheck) or len(named) != 1:
            return None
        consequence = f"`{named[0]}` was read after {after.group('rest')}"
    elif re.search(r"(?<![\w`])(?:it|this|that)(?![\w`])", _unquoted(consequence), re.I):
        if len(named) != 1 or not re.search(r"(?<![\w`])it(?![\w`])", consequence):
            return None  # "this", "that", or an "it" of two literals: which?
        consequence = _replace_unquoted(consequence, r"\bit\b", f"`{named[0]}`")
        if re.search(r"(?<![\w`])(?:it|this|that)(?![\w`])", _unquoted(consequence), re.I):
            return None
    effect = _compile_one(consequence, vocabulary)
    if effect is None:
        return None
    unless = (
        cause.check.operand if isinstance(cause.check, NotCheck) else NotCheck(operand=cause.check)
    )
    check = AnyOfCheck(operands=[unless, effect.check])
    tree = f"(if {cause.tree or '(template ' + cause.rule + ')'}) (then {effect.tree or '(template ' + effect.rule + ')'})"
    return Compiled(f"if {cause.rule} then {effect.rule}", check, tree)


def _unquoted(text: str) -> str:
    return re.sub(r"`[^`]*`", "`", text)


def _replace_unquoted(text: str, pattern: str, replacement: str) -> str:
    parts = re.split(r"(`[^`]*`)", text)
    for index in range(0, len(parts), 2):
        parts[index] = re.sub(pattern, replacement, parts[index])
    return "".join(parts)


def compile_sentence(sentence: str, vocabulary: SkillVocabulary | None = None) -> Compiled | None:
    """The checks that hold exactly when `sentence` does, or None if no rule covers all of it.

    A criterion of several sentences compiles when each does (their checks all hold) or is a
    permission that relaxes nothing the others require ("Reading it together with other
    references is acceptable"). `vocabulary` is the target skill's (`skill_vocabulary.py`):
    a bare word it documents as one of its commands names that command."""
    parts = split_sentences(sentence)
    if len(parts) == 1:
        return _compile_one(sentence, vocabulary)
    compiled: list[Compiled] = []
    permissions: list[str] = []
    for part in parts:
        one = _compile_one(part, vocabulary)
        if one is not None:
            compiled.append(one)
        elif _permission(part):
            permissions.append(part)
        else:
            return None
    if not compiled or (permissions and any(_forbids(c.check) for c in compiled)):
        return None  # a permission beside a prohibition or an order could relax it
    trees = [f"{c.tree or '(template ' + c.rule + ')'}" for c in compiled]
    trees += ["(permission: adds no check)" for _ in permissions]
    check = combine([c.check for c in compiled], "all")
    return Compiled(" + ".join(c.rule for c in compiled), check, " | ".join(trees))


_ABBREVIATIONS = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl)\.|\b[A-Za-z]\.)$")


def split_sentences(text: str) -> list[str]:
    """A criterion's sentences: split after `.`, `!` or `?` before a capital, never inside
    backticks or after an abbreviation ("e.g.")."""
    parts: list[str] = []
    start = 0
    for match in re.finditer(r"(?<=[.!?])\s+(?=[A-Z`\u4e00-\u9fff])", text):
        before = text[start : match.start()]
        if text[: match.start()].count("`") % 2 or _ABBREVIATIONS.search(before):
            continue
        parts.append(before.strip())
        start = match.end()
    parts.append(text[start:].strip())
    return [p for p in parts if p]


_PERMISSION = re.compile(
    r"(?P<what>.+?) (?:is|are) (?:also |still )?(?:acceptable|allowed|fine|ok|okay|permitted)"
)
_RESTRICTING = re.compile(r"\b(?:not|no|never|without|skip\w*|omit\w*|instead|only|must)\b|n't\b")


def _permission(sentence: str) -> bool:
    """ "Reading it together with other references is acceptable": it allows more, requires
    nothing, and (without a negation in it) cannot excuse a missing act."""
    text = re.sub(r"\s+", " ", sentence.strip().rstrip(".!").lower())
    match = _PERMISSION.fullmatch(text)
    return match is not None and not _RESTRICTING.search(match.group("what"))


def _forbids(check: Check) -> bool:
    """Whether `check` rules something out a permission could allow: a denial, or an order
    ("reads `A` first" rules out reading `B` before it; "Reading `B` first is acceptable")."""
    if isinstance(check, NotCheck | ReadBeforeCheck):
        return True
    if isinstance(check, AnyOfCheck | AllOfCheck):
        return any(_forbids(c) for c in check.operands)
    return False


@dataclass(frozen=True)
class CompiledEntry:
    """An entry's prose as checks to run, combined by the entry's polarity, with provenance."""

    checks: list[Check]
    provenance: list[Provenance]


@dataclass(frozen=True)
class SentenceOutcome:
    """One sentence of an entry as the compiler read it: its provenance when it compiled (or
    is a complement) and the check the entry runs for it (a required entry's fail signal is
    denied: it holds when the signal is not seen; a complement has none)."""

    role: SentenceRole
    sentence: str
    provenance: Provenance | None  # None: it did not compile
    check: Check | None = None


def entry_sentences(entry: AssertionEntry) -> list[tuple[SentenceRole, str]]:
    """An entry's sentences by role; with no criteria, its description is the only statement
    of what must be observed."""
    sentences: list[tuple[SentenceRole, str]] = [
        ("pass_criteria", s) for s in entry.pass_criteria
    ] + [("fail_signals", s) for s in entry.fail_signals]
    return sentences or [("description", entry.description)]


def compile_sentences(
    entry: AssertionEntry, polarity: Polarity, vocabulary: SkillVocabulary | None = None
) -> list[SentenceOutcome]:
    """Each sentence of the entry compiled on its own (see `compile_entry`)."""
    outcomes: list[SentenceOutcome] = []
    asserted: list[tuple[int, Compiled]] = []  # the positive pass criteria, by index
    for role, sentence in entry_sentences(entry):
        compiled = compile_sentence(sentence, vocabulary)
        if compiled is None:
            index = (
                _complemented(sentence, asserted, vocabulary)
                if polarity == "required" and role == "fail_signals"
                else None
            )
            if index is not None and not sentence_literals(sentence) and _any_uncompiled(outcomes):
                # "never consults any ConvoAI auth source" names nothing: the complement of
                # a compiled criterion, or of one that did not compile?
                index = None
            complement = None
            if index is not None:
                complement = Provenance(
                    sentence=sentence,
                    role=role,
                    rule=f"complement of pass_criteria[{index}]",
                    checks=[],
                )
            outcomes.append(SentenceOutcome(role, sentence, complement))
            continue
        if role == "pass_criteria" and not compiled.rule.startswith("not "):
            asserted.append((entry.pass_criteria.index(sentence), compiled))
        provenance = Provenance(
            sentence=sentence,
            role=role,
            rule=compiled.rule,
            checks=[compiled.check],
            tree=compiled.tree,
        )
        signal = polarity == "required" and role == "fail_signals"
        check = NotCheck(operand=compiled.check) if signal else compiled.check
        outcomes.append(SentenceOutcome(role, sentence, provenance, check))
    return outcomes


def _any_uncompiled(outcomes: list[SentenceOutcome]) -> bool:
    return any(o.provenance is None and o.role == "pass_criteria" for o in outcomes)


def compile_entry(
    entry: AssertionEntry, polarity: Polarity, vocabulary: SkillVocabulary | None = None
) -> CompiledEntry | None:
    """Every sentence compiled, or None (then `judge/parts.py` says what its compiled parts can
    decide alone: only a failure, and only where the entry's sentences are a plain conjunction).

    A required entry holds when each pass criterion holds and no fail signal is seen; a
    forbidden entry is observed when any of its sentences is. A required entry's fail signal
    that only denies what a pass criterion asserts ("never consults the routing guide" beside
    "shows consultation of `README.md`") is that criterion's complement: it adds no check."""
    return compiled_whole(compile_sentences(entry, polarity, vocabulary))


def compiled_whole(outcomes: list[SentenceOutcome]) -> CompiledEntry | None:
    """The entry of these sentences (`compile_sentences`) when every one compiled, or None."""
    provenance = [o.provenance for o in outcomes if o.provenance is not None]
    if len(provenance) < len(outcomes):
        return None
    return CompiledEntry([o.check for o in outcomes if o.check is not None], provenance)


# The predicate a denial names, and the pass-criterion rules that assert it.
_ASSERTING: dict[str, frozenset[str]] = {
    "consultation": frozenset({"consultation", "read-first", "read-before"}),
    "command": frozenset({"command", "git-clone", "listed-commands"}),
    "file-written": frozenset({"file-written"}),
}
# Words that make a denial say more than "it did not happen": an order, a contrast, a condition,
# a permission.
_CONDITIONS = frozenset(
    [
        "before",
        "after",
        "first",
        "then",
        "only",
        "other",
        "another",
        "different",
        "instead",
        "unless",
        "except",
        "than",
        "but",
        "outside",
        "twice",
        "again",
        "without",
        # "does not need to read it": optional, not denied
        "need",
        "needs",
        "optional",
        "may",
        "might",
        "can",
        "could",
    ]
)


def _complemented(
    sentence: str, asserted: list[tuple[int, Compiled]], vocabulary: SkillVocabulary | None = None
) -> int | None:
    """The pass criterion a fail signal only denies, if it does: the signal is a negation
    ("never", "shows no") of the same predicate, and whatever it names exactly is named by
    that criterion too. Its other words (the "relevant" guide, "any ConvoAI auth reference")
    describe what the criterion names, so the signal can hold only when the criterion fails."""
    agents = vocabulary.agents if vocabulary is not None else ()
    skeleton = _skeleton(sentence, agents=agents)  # its names as written, not resolved
    if skeleton is None or not skeleton.negated or skeleton.chinese:
        return None
    said = set(re.findall(r"[a-z]+", skeleton.text))
    if said & _CONDITIONS or re.search(r"\b(?:required|expected) to\b", skeleton.text):
        return None  # "never reads it before X", "no other file": more than a denial
    parsed = parse_sentence(
        skeleton.text, skeleton.literals, skeleton.subject, skeleton.negated, vocabulary
    )
    predicate = parsed.predicate
    if predicate is None:  # "No dev server start command observed": the one predicate named
        named = [p.name for p in PREDICATES if said & (p.verbs | p.nouns | p.participles)]
        predicate = named[0] if len(named) == 1 else None
    if predicate not in _ASSERTING:
        return None
    for index, compiled in asserted:
        rules = set(compiled.rule.split(" + "))
        if not rules & _ASSERTING[predicate]:
            continue
        # Each literal alone must defeat the criterion: "never consults `A` or `B`" may mean
        # "not both", and denying one alternative of "`A` or `B`" leaves the other to pass.
        if all(_defeats(compiled.check, literal, predicate) for literal in skeleton.literals):
            return index
    return None


def _defeats(check: Check, literal: str, predicate: str) -> bool:
    """Whether `literal` never being read (run, written) makes `check` fail: it names a file
    (command) the check needs, in every alternative of an `any_of`, in one part of an `all_of`."""
    if isinstance(check, AnyOfCheck):
        return all(_defeats(c, literal, predicate) for c in check.operands)
    if isinstance(check, AllOfCheck):
        return any(_defeats(c, literal, predicate) for c in check.operands)
    if predicate == "consultation" and isinstance(check, FileReadCheck):
        return _names_path(literal, check.path)
    if predicate == "consultation" and isinstance(check, ReadBeforeCheck):
        return _names_path(literal, check.first)  # `then` need not be read at all
    if predicate == "file-written" and isinstance(check, FileWrittenCheck):
        return _names_path(literal, check.path)
    if predicate == "command" and isinstance(check, ScriptRanCheck):
        return _names_path(literal, check.path)
    if predicate == "command" and isinstance(check, CommandRanCheck):
        # The command pattern holds its literal escaped, between non-word characters: `make`
        # names `make test`, not `cmake build`.
        quoted = re.escape(re.escape(literal))
        return re.search(rf"(?<![\w-]){quoted}(?![\w-])", check.pattern) is not None
    return False


def sentence_literals(sentence: str) -> tuple[str, ...]:
    """The exact parts a sentence names, as written: its backticked literals and the bare
    paths and commands read as if backticked (no skill vocabulary resolves them)."""
    marked = _mark_bare_paths(_mark_bare_command(sentence))
    return tuple(m.group(1).strip() for m in BACKTICKED.finditer(marked))


def names_same(literal: str, other: str) -> bool:
    """Whether two literals may name the same thing: one path names the other (a whole last
    part, a directory above it) or one command's words hold the other's."""
    if _names_path(literal, other) or _names_path(other, literal):
        return True
    a, b = re.escape(literal), re.escape(other)
    return bool(
        re.search(rf"(?<![\w-]){a}(?![\w-])", other)
        or re.search(rf"(?<![\w-]){b}(?![\w-])", literal)
    )


def _names_path(literal: str, named: str) -> bool:
    """`quickstarts.md` names `.agents/.../quickstarts.md` (a whole last part, never `data.md`
    for `a.md`); a directory names what is under it."""
    literal, named = literal.removeprefix("./").rstrip("/"), named.removeprefix("./")
    bare = named.rstrip("*").rstrip("/")
    return (
        named == literal
        or bare == literal
        or ("/" + named).endswith("/" + literal)
        or ("/" + bare).endswith("/" + literal)
        or ("/" + named).startswith("/" + literal + "/")
        or "/" + literal + "/" in "/" + named
    )


@dataclass(frozen=True)
class Refusal:
    """A sentence that did not compile: why, and a structured check its author could write."""

    sentence: str
    role: SentenceRole
    why: str
    instead: str | None


_RUNS = re.compile(r"\b(?:run|runs|ran|running|invok\w*|execut\w*|command)\b")


def refuse_sentence(
    sentence: str,
    role: SentenceRole,
    polarity: Polarity = "required",
    vocabulary: SkillVocabulary | None = None,
) -> Refusal:
    """Why `sentence` does not compile (it must not), for `explain`, with the check its entry
    of `polarity` could hold instead (a required entry's checks must all pass, so a fail signal's
    claim is denied there; a denial in the sentence is kept). Of a criterion of several
    sentences, why the first that stops it does."""
    parts = split_sentences(sentence)
    if len(parts) > 1:
        for part in parts:
            if _compile_one(part, vocabulary) is None and not _permission(part):
                refusal = refuse_sentence(part, role, polarity, vocabulary)
                return Refusal(sentence, role, f"in {part!r}: {refusal.why}", refusal.instead)
        return Refusal(
            sentence, role, "a permission beside a prohibition or an order could relax it", None
        )
    condition = split_condition(sentence)
    if condition is not None:
        return _refuse_conditional(sentence, role, *condition, vocabulary)
    either = _split_either(sentence)
    if either is not None:
        for part in either:
            if _opens_with_it(part):
                why = "the grammar stopped at 'it': the agent, or the other part's literal?"
                return Refusal(sentence, role, f"in {part!r}: {why}", None)
            if _compile_one(part, vocabulary) is None:
                refusal = refuse_sentence(part, role, polarity, vocabulary)
                return Refusal(sentence, role, f"in {part!r}: {refusal.why}", None)
    example = _example(sentence)
    if example is not None and not _EXAMPLE.search(sentence[example.end() :]):
        rest = (sentence[: example.start()] + sentence[example.end() :]).strip()
        refusal = refuse_sentence(rest, role, polarity, vocabulary)
        return Refusal(sentence, role, f"with its example dropped: {refusal.why}", refusal.instead)
    skeleton = _resolved_skeleton(sentence, vocabulary)
    if skeleton is None:
        return Refusal(sentence, role, "nothing is left once the lead-in is read", None)
    why = "no template matches"
    predicate = None
    refused_at = None
    if not skeleton.chinese:
        parsed = parse_sentence(
            skeleton.text, skeleton.literals, skeleton.subject, skeleton.negated, vocabulary
        )
        refused_at = parsed.refused_at
        why += f"; the grammar stopped at {refused_at!r}"
        for name, matches in resolutions(sentence, vocabulary):
            if len(matches) > 1:
                why += f" ({name} names {len(matches)} files of the skill: {', '.join(matches)})"
        # "searched all chats" where the skill defines "search all chats" twice: say where.
        why += "".join(f" {node}" for node in parsed.tree if node.startswith(TWICE_DEFINED))
        predicate = parsed.predicate
    denied = skeleton.negated or " not " in f" {skeleton.text} "
    if denied and (
        refused_at in _UNSURE_NEEDS or (refused_at == "and" and len(skeleton.literals) > 1)
    ):
        # "does not need to read it", "never reads `A` and `B`": no one exact check to offer
        return Refusal(sentence, role, why, None)
    instead = _instead(skeleton, predicate)
    if instead is not None and skeleton.negated != (
        polarity == "required" and role == "fail_signals"
    ):
        instead = f"{{not: {instead}}}"
    return Refusal(sentence, role, why, instead)


def _refuse_conditional(
    sentence: str,
    role: SentenceRole,
    condition: str,
    consequence: str,
    vocabulary: SkillVocabulary | None,
) -> Refusal:
    """Why "If X, Y" did not compile: the part that does not compile alone, or the pronoun."""
    if not consequence:
        if "," in _unquoted(sentence):
            why = "the comma after the condition may be inside a list of literals"
        else:
            why = "a condition without a consequence after a comma"
        return Refusal(sentence, role, why, None)
    if split_condition(consequence) or split_condition(condition):
        return Refusal(sentence, role, "a condition inside a condition", None)
    if _compile_one(condition, vocabulary) is None:
        refusal = refuse_sentence(condition, role, vocabulary=vocabulary)
        return Refusal(sentence, role, f"in the condition {condition!r}: {refusal.why}", None)
    if _compile_one(consequence, vocabulary) is None:
        refusal = refuse_sentence(consequence, role, vocabulary=vocabulary)
        return Refusal(sentence, role, f"in the consequence {consequence!r}: {refusal.why}", None)
    return Refusal(
        sentence,
        role,
        "the consequence's pronoun names no one read of the condition (say the file)",
        None,
    )


# Where a denial of a need refuses ("does not need to", "is not required to"): optional.
_UNSURE_NEEDS = frozenset({"need", "needs", "have", "has", "is"})


PLACEHOLDERS = {
    "consultation": "{kind: file_read, path: '<path>'}",
    "command": "{kind: command_ran, pattern: '<regex>'}",
    "file-written": "{kind: file_written, path: '<path>'}",
    "workspace-file-exists": "{kind: workspace_file_exists, path: '<path>'}",
    "workspace-file-contains": "{kind: workspace_file_contains, path: '**/*', text: '<text>'}",
    "answer-mentions": "{kind: final_answer_contains, text: '<text>'}",
    "agent-said": "{kind: agent_said, text: '<text>'}",
    "fetch": "{kind: url_fetched, url: '<url>'}",
    "skill-invoked": "{kind: skill_invoked, skill: '<skill>'}",
}


# Words that order two acts. "before the answer" (and "before answering") restate the case
# (the session ends with its answer) and order nothing a check could.
_ORDER = re.compile(r"\b(?:before|after|prior to|first|then)\b|之前|之后|以前|以后|然后|首先")
_ANSWER_CONTEXT = re.compile(
    r"\bbefore (?:(?:the|its|a) (?:final )?(?:answer|response|reply)"
    r"|answering|summari[sz]ing|responding|replying)\b"
)
# The predicates whose suggestion keeps an order (its check orders two acts).
_ORDERED = frozenset({"read-before", "read-first", "fetch-before", "ran-before"})
_FETCH_WORDS = re.compile(r"\b(?:fetch\w*|download\w*|request(?:s|ed|ing)?)\b")


def _instead(skeleton: Sentence, predicate: str | None) -> str | None:
    """The structured check an author could write for the sentence's literals, by the predicate
    the grammar recognised before it stopped, else by what its words are about; None when it
    names nothing exact, or when the check would drop an order the sentence states."""
    ordered = _ORDER.search(_ANSWER_CONTEXT.sub("", skeleton.text)) is not None
    if predicate in ("fetch", "fetch-before") or (
        predicate is None
        and _FETCH_WORDS.search(skeleton.text)
        and any(fetch_target(v) is not None for v in skeleton.literals)
    ):
        return _fetch_instead(skeleton, predicate == "fetch-before" or ordered)
    if ordered and predicate not in _ORDERED:
        return None  # a check of one act would drop the order
    if not skeleton.literals:
        # The claim is known but names nothing exact: the check, with the part to fill in.
        return PLACEHOLDERS.get(predicate or "")
    if any(fetch_target(v) is not None and not path_shaped(v) for v in skeleton.literals):
        return None  # a URL or a host is no file read or written, nor a command
    make: Callable[[str], str]
    if predicate == "read-before" and len(skeleton.literals) == 2:
        first, then = skeleton.literals
        return f"{{kind: read_before, first: {first!r}, then: {then!r}}}"
    if predicate == "file-written":
        make = lambda v: f"{{kind: file_written, path: {v!r}}}"  # noqa: E731
    elif predicate == "workspace-file-exists":
        make = lambda v: f"{{kind: workspace_file_exists, path: {v!r}}}"  # noqa: E731
    elif skeleton.subject == "answer" or predicate == "answer-mentions":
        make = lambda v: f"{{kind: final_answer_contains, text: {v!r}}}"  # noqa: E731
    elif predicate == "agent-said":
        make = lambda v: f"{{kind: agent_said, text: {v!r}}}"  # noqa: E731
    elif predicate in ("consultation", "read-first", "read-before") or (
        predicate is None
        and re.search(READ_VERBS + "|" + READ_NOUNS + "|" + CJK_READ, skeleton.text)
    ):
        make = lambda v: f"{{kind: file_read, path: {v!r}}}"  # noqa: E731
    elif (
        predicate == "command"
        or _RUNS.search(skeleton.text)
        or re.search("运行|执行|调用", skeleton.text)
    ):
        make = lambda v: f"{{kind: command_ran, pattern: {re.escape(v)!r}}}"  # noqa: E731
    else:
        return None
    return _joined_suggestion(skeleton, [make(v) for v in skeleton.literals])


def _joined_suggestion(skeleton: Sentence, checks: list[str]) -> str:
    """One suggested check, or the sentence's literals' checks joined as it joins them."""
    if len(checks) == 1:
        return checks[0]
    join = (
        "all_of"
        if re.search(r"\band\b", skeleton.text) and " or " not in skeleton.text
        else "any_of"
    )
    return f"{{{join}: [{', '.join(checks)}]}}"


def _fetch_instead(skeleton: Sentence, ordered: bool) -> str | None:
    """`url_fetched` for each URL or host the sentence names (with `before_read` when it
    orders the fetch before a read: its one other literal, else a placeholder)."""
    targets = [t for v in skeleton.literals if (t := fetch_target(v)) is not None]
    others = [v for v in skeleton.literals if fetch_target(v) is None]
    if not targets:
        return PLACEHOLDERS["fetch"] if not others else None
    if others and not ordered:
        return None  # a literal that is no URL nor host: what is it to the fetch?
    if ordered:
        if len(others) > 1 or not re.search(r"\bbefore\b|\bprior to\b", skeleton.text):
            return None  # after a read, or before one of several: no one check
        read = others[0] if others else "<path>"
        targets = [t.model_copy(update={"before_read": read}) for t in targets]
    checks = [
        f"{{kind: url_fetched, {'url' if t.url else 'host'}: {t.url or t.host!r}"
        + (f", before_read: {t.before_read!r}}}" if t.before_read else "}")
        for t in targets
    ]
    return _joined_suggestion(skeleton, checks)


def check_text(check: Check) -> str:
    """A check in one compact line (`file_read(path='x')`): what the catalogue pins."""
    if isinstance(check, NotCheck):
        seen = "" if check.if_seen is None else f" (if seen: {check.if_seen})"
        return f"not{seen} {check_text(check.operand)}"
    if isinstance(check, AnyOfCheck | AllOfCheck):
        joined = ", ".join(check_text(c) for c in check.operands)
        return f"{check.kind}[{joined}]"
    fields = check.model_dump(mode="json", exclude_none=True, exclude={"kind", "note"})
    values = " ".join(f"{k}={v!r}" for k, v in fields.items() if v is not False)
    return f"{check.kind}({values})"


def check_yaml(check: Check) -> str:
    """A check as its author writes it, in YAML flow style (`{kind: file_read, path: x}`,
    `{not: {...}}`, `{any_of: [...]}`); fields left at their default off and notes not shown, a
    long pattern as its excerpt (`pattern_excerpt.py`: the whole is in `explain --json`)."""
    data = check.model_dump(mode="json", by_alias=True, exclude_none=True)
    return yaml.safe_dump(
        _as_written(data),
        default_flow_style=True,
        sort_keys=False,
        width=1 << 30,
        allow_unicode=True,
    ).strip()


def _as_written(value: object) -> object:
    if isinstance(value, dict):
        patterns = PATTERN_FIELDS.get(str(value.get("kind")), ())
        return {
            k: excerpt(v) if k in patterns and isinstance(v, str) else _as_written(v)
            for k, v in value.items()
            if v is not False and k != "note"
        }
    if isinstance(value, list):
        return [_as_written(v) for v in value]
    return value
