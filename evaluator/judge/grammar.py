"""A grammar for English criteria sentences: every word accounted for, or the sentence is refused
at the word that stopped it (`criteria.py` has read the lead-in and a leading negation first).

    sentence  := [evidence] [agent] [negation] [modal [not]] clause [joined] [not-just] [outcome]
                 [purpose] [context] [END]
    evidence  := "shows" | "includes" | ... ["evidence of"] ["that"]     (session sentences)
    agent     := the [coding|ai] (agent|skill|assistant|model) | it | AGENT-NAME
    negation  := never | not | does not | ... | avoids (a gerund follows)
    joined    := ["," | and | but] [not | never] [also] VERB objects      (a second claim)
               | ["," ] without VERB objects | and it (contains|mentions) objects (after a write)
    clause    := VERB ["or" VERB] objects [located] [order]  "the agent ran `make test`"
                                                         (two verbs of one act: "creates or
                                                          updates `X`")
               | VERB described [contrast]              "used a chats query (`--since`)"
               | PHRASE                                 "searched across all chats" (a phrase
                                                         the skill defines by a flag)
               | [quantifier] NOUN objects [order]      "consultation of `SKILL.md`"
               | objects BE [negation] PARTICIPLE ["or" PARTICIPLE] [by the agent] [located]
                 [order]
               | objects BE [not] "present"                     (a file exists, or not)
               | objects [does not] "exists" [in the workspace] [and (contains|mentions) objects]
               | objects [does not] "contains" objects   "`app.py` contains `os.environ`"
               | objects BE [left] (unchanged|unmodified) | objects BE the first KIND [agent] VERB
               | "a file" [exists] [in the workspace] "containing" (objects | value-phrase)
               | (denied) "file" [in the workspace] BE PARTICIPLE-LIST   (no write at all)
               | the workspace BE|remains [left] unchanged               (no write at all)
               | ["the code"] [negation] "hard-codes" value-phrase [place]
               | value-phrase BE [not] "hard-coded" [place]      (a case's declared variable)
               | ("contains" | "has") objects           (workspace sentences)
               | "includes a" ["local"] "URL" | "includes a link to" objects   (answer sentences)
    value-phrase := [the] [literal|exact|actual]* WORDS [value] | [the] WORDS's value
                 | [the] value of [the] (WORDS | literal)   (WORDS: parts of one declared name)
    located   := (under|in|inside|within) [the] [DIRECTORY] literal [DIRECTORY]
                                                         (one file name in one named folder:
                                                          `D/F` or deeper)
    objects   := [quantifier | anything] (NEUTRAL | KIND)* [scope] literal-list [KIND]
                 [or equivalent]                         ("neither `A` nor `B`": denied any_of;
                                                          a list's last item may be "or any
                                                          `D/*` file", "or any file in `D/`";
                                                          "as well as" is "and")
    contrast  := (rather than | instead of) [a|an] UNNARROWED [subcommand] NOUN
                                                         (the command without its flag: pass,
                                                          fail, or left to the model judge)
    literal   := a backticked literal | a bare word the target skill documents as its command
    order     := ("before" | "prior to") [reading] objects ["other than itself"]
                 | ["only"] "after" objects | "first" | "before any other" KIND
                 | [first] ["," | and] "then" objects      (both read, in that order)
                 | ((["," | and] "then" | "→" | "->" | "=>") objects)+   (a chain of reads)
                 | ["," | and] ("then" | "followed by") [VERB] objects  (two commands: both
                                                          ran, in that order; "followed by"
                                                          between reads is "then")
    arguments := "with" [the] literal-list [flag|option|argument]   (after a command)
    outcome   := "successfully" | "successful"           (exit code 0; a read that showed content)
                 ["at least once"]                      (one act: adds nothing)
    not-just  := ["," | and] "not" (just|only|merely) objects   (named by the claim already)
    purpose   := "to" WORD WORD+                         (why a command ran or a file was read:
                                                          intent, dropped; refused elsewhere)
    context   := "for" (a|the|this) WORDS* REQUEST | "before" (the|its) [final] ANSWER
                 | "before" (answering|summarizing)      (what only restates the case)

The predicate comes from a verb lexicon (read, run, write, mention; exist and contain; the
session's "mentions"/"says", which is any message of the agent's: `agent_said`); what may
follow it depends on the predicate. Words in `NEUTRAL` say nothing a backticked literal does not
already say exactly (a "product" reference file, the "relevant" file, a "local" file); a word
outside every lexicon (an "other" file, the "newest" file, "successfully") could change the
meaning, so it refuses the sentence: it is never skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

from evaluator.contract.models import (
    AgentSaidCheck,
    AllOfCheck,
    Check,
    CommandRanCheck,
    FileReadCheck,
    FileWrittenCheck,
    FinalAnswerContainsCheck,
    FinalAnswerUrlCheck,
    NotCheck,
    RanBeforeCheck,
    ReadBeforeCheck,
    ScriptRanCheck,
    SkillInvokedCheck,
    UrlFetchedCheck,
    WorkspaceEnvValueCheck,
    WorkspaceFileContainsCheck,
    WorkspaceFileExistsCheck,
)
from evaluator.judge.literal_checks import (
    combine,
    command_check,
    directory_glob,
    equivalent_is_exact,
    fetch_target,
    flag_shaped,
    path_shaped,
    skill_command_check,
    skill_command_without,
    tool_name,
    unique,
)
from evaluator.judge.skill_vocabulary import DefinedPhrase, SkillVocabulary, Term

# Words that say nothing a backticked literal does not already say exactly.
NEUTRAL = frozenset(
    {
        "product",
        "relevant",
        "local",
        "appropriate",
        "corresponding",
        "bundled",
        "shipped",
        "provided",
        "skill",
        "skill's",
        "project",
        "project's",
        "repository",
        "repo",
        "markdown",
        "github",
        "shell",
        "helper",
        "exact",
        "literal",
    }
)
# What a literal is called, as modifiers ("reference file") or heads ("the reference"). Which
# names fit depends on the claim: a URL is no file one reads, a file is no command one runs.
FILE_KINDS = frozenset(
    {
        "file",
        "files",
        "reference",
        "references",
        "document",
        "documents",
        "doc",
        "docs",
        "documentation",
        "guide",
        "guides",
        "instructions",
        "page",
        "pages",
        "path",
        "paths",
        "script",
        "scripts",
    }
)
COMMAND_KINDS = frozenset({"command", "commands", "script", "scripts"})
# What a fetched literal may be called: "the URL `U`", "the host `H`", "the page `U`".
FETCH_KINDS = frozenset(
    {"url", "urls", "page", "pages", "host", "hosts", "domain", "domains", "site", "endpoint"}
)
# "a fetch to `H` was attempted": the check counts a fetch tried (a request sent) already.
ATTEMPTED = frozenset({"attempted", "made", "tried"})
ANSWER_KINDS = (
    FILE_KINDS
    | COMMAND_KINDS
    | frozenset({"text", "string", "name", "url", "urls", "link", "links", "address"})
)
DIRECTORY = frozenset({"directory", "folder", "dir"})
SHOW_VERBS = frozenset(
    {"shows", "show", "showed", "includes", "include", "contains", "contain", "records", "has"}
)
AGENTS = frozenset({"agent", "skill", "assistant", "model"})
AGENT_MODIFIERS = frozenset({"coding", "ai"})  # "the coding agent", "the AI assistant"
CONTAINS = frozenset({"contains", "contain", "containing", "includes", "including", "holds"})
BE = frozenset({"was", "were", "is", "are", "got", "gets", "being"})
SCOPES = frozenset({"under", "in", "inside", "within", "from"})
# A skill fired: "invokes the X skill", "the X skill is invoked", "the X skill fires".
SKILL_INVOKING = frozenset(
    {"invoke", "invokes", "invoked", "load", "loads", "loaded", "trigger", "triggers"}
    | {"triggered", "activate", "activates", "activated", "use", "uses", "used"}
)
SKILL_INVOKED = frozenset({"invoked", "loaded", "triggered", "activated", "used"})
SKILL_FIRES = frozenset({"fires", "fired", "triggers", "triggered", "activates", "activated"})
# A skill's name as its front matter writes it (`loop-builder`): lower-case words and hyphens.
_SKILL_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
# A whole path part, or a file name's stem, in angle brackets: `<loop-name>/`, `<topic>.md`.
_PLACEHOLDER = re.compile(r"(?:^|(?<=/))<[A-Za-z][\w-]*>(?=$|[/.])")
# The same anywhere a word may start (`delete <UUID>`, `--name=<name>`): no glob there.
_PLACEHOLDER_WORD = re.compile(r"(?:^|(?<=[\s/=:]))<[A-Za-z][\w-]*>(?=$|[\s/.,:])")
# A read counts only when its content reached the agent, so a "successful" read says nothing
# more; a command "successfully" run exited 0.
SUCCESSFUL = frozenset({"successful", "successfully"})
# What only says the claim is required or expected: "the agent should read `X`" is "read `X`".
MODALS: tuple[tuple[str, ...], ...] = (
    ("should",),
    ("must",),
    ("shall",),
    ("will",),
    ("needs", "to"),
    ("need", "to"),
    ("has", "to"),
    ("have", "to"),
    ("is", "expected", "to"),
    ("is", "required", "to"),
    ("did",),
    ("does",),
)
# Before an evidence verb ("the session should show"): expected, nothing more. No negation: "should
# not show" is left to the negations the lead-in reads.
EVIDENCE_MODALS: tuple[tuple[str, ...], ...] = (
    ("should",),
    ("must",),
    ("will",),
    ("is", "expected", "to"),
    ("is", "required", "to"),
)
# A negation before these says the act is optional, not that it must not happen.
NECESSITIES = frozenset(
    {
        ("needs", "to"),
        ("need", "to"),
        ("has", "to"),
        ("have", "to"),
        ("is", "expected", "to"),
        ("is", "required", "to"),
    }
)
# What each participle of a write names of `file_written` (a creation, a change or a deletion),
# for a denial of any write at all ("no file is modified, created or deleted").
WRITE_KINDS: dict[str, frozenset[str]] = {
    "created": frozenset({"create"}),
    "added": frozenset({"create"}),
    "written": frozenset({"create", "change"}),
    "modified": frozenset({"change"}),
    "changed": frozenset({"change"}),
    "edited": frozenset({"change"}),
    "updated": frozenset({"change"}),
    "overwritten": frozenset({"change"}),
    "deleted": frozenset({"delete"}),
    "removed": frozenset({"delete"}),
}
REMAINS = frozenset({"remains", "remained", "stays", "stayed"})
# "is observed": what the session shows, said once more.
OBSERVED = frozenset({"observed", "seen", "recorded", "shown", "visible"})
SESSION_NAMES = frozenset({"session", "trace", "transcript", "log", "rollout", "evidence"})
# What "neither `A` nor `B`" may deny: one claim of one act, no order or second claim.
NEITHER_CLAIMS = frozenset(
    {
        "consultation",
        "command",
        "file-written",
        "answer-mentions",
        "agent-said",
        "workspace-file-exists",
    }
)
# "`X` does not exist", "`X` does not contain `Y`": a state of the workspace denied.
DENIED_STATE: tuple[tuple[str, ...], ...] = (
    ("does", "not"),
    ("do", "not"),
    ("doesn't",),
    ("don't",),
)
COMMAND_NOUNS = frozenset({"command", "commands", "invocation", "invocations"})
ARGUMENT_KINDS = frozenset({"flag", "flags", "option", "options", "argument", "arguments"})
# What the case itself is: the prompt the agent was given, and the answer its session ends with.
REQUESTS = frozenset({"request", "prompt", "task", "question", "query", "ask"})
ANSWERS = frozenset({"answer", "response", "reply"})
# Before a bare word of the skill's vocabulary, these make it a common noun ("ran a search"),
# not the skill's command ("ran search"), unless a name of a command follows ("the stats flag").
ARTICLES = frozenset({"a", "an", "the", "any", "some", "one", "each", "every", "its", "their"})
COMMAND_NAMES = frozenset(
    {"command", "commands", "subcommand", "subcommands", "flag", "flags", "option", "options"}
)
# A case's declared variable, named by words ("the literal app certificate", "the app ID's
# value", "the value of `AGORA_APP_ID`"): what may surround the words that name it.
VALUE_MODIFIERS = frozenset({"literal", "exact", "actual"})  # the value itself: what is matched
VALUE_NOUNS = frozenset({"value", "values"})
_NAME_WORD = re.compile(r"[a-z0-9]+(?:['\u2019]s)?")
# Words that end a variable's name in a sentence: what follows it is the rest of the claim.
NAME_STOPS = (
    ARTICLES
    | BE
    | frozenset(
        {
            "in",
            "into",
            "inside",
            "within",
            "on",
            "at",
            "to",
            "from",
            "of",
            "for",
            "with",
            "by",
            "as",
        }
        | {"and", "or", "but", "nor", "not", "never", "no", "that", "which", "anywhere"}
        | {"hardcoded", "hardcodes", "hardcode"}
    )
)
# "The code hard-codes X", "X is hard-coded (in a file)": a workspace file holds X's value.
HARD_CODES = frozenset({"hard-codes", "hardcodes", "hard-code", "hardcode"})
HARD_CODED = frozenset({"hard-coded", "hardcoded"})
# Where a hard-coded value is: any file the workspace holds ("in a file", "in the code").
HARD_CODE_PLACES = frozenset({"file", "files", "workspace", "code", "codebase", "source"})
# The session's answer is its summary too: "before summarizing" is "before answering".
ANSWERING = frozenset({"answering", "responding", "replying", "summarizing", "summarising"})
PURPOSE_LEADS: tuple[tuple[str, ...], ...] = (("in", "order", "to"), ("so", "as", "to"), ("to",))
# What may not be dropped with a purpose: a denial, an order, a contrast, a condition, a second
# act ("and", "or", ","), or an outcome a rule could see ("to verify the tests pass").
PURPOSE_STOPS = frozenset(
    {
        "not",
        "no",
        "never",
        "without",
        "only",
        "unless",
        "except",
        "but",
        "than",
        "instead",
        "rather",
        "before",
        "after",
        "first",
        "then",
        "other",
        "another",
        "different",
        "twice",
        "again",
        "and",
        "or",
        ",",
        "(",
        ")",
        "if",
        "when",
        "while",
        "until",
        "successful",
        "successfully",
        "pass",
        "passes",
        "succeed",
        "succeeds",
        "work",
        "works",
        "fail",
        "fails",
    }
)
# What a description restated by a parenthesis ends in: "a date-windowed chats query (`--since`)".
DESCRIBED_HEADS = frozenset(
    {"command", "commands", "query", "queries", "call", "calls", "invocation", "invocations"}
)
# Words a parenthesis could not restate: a state, an outcome, a count or a rank of the command.
DESCRIPTION_STOPS = PURPOSE_STOPS | frozenset(
    {
        "failing",
        "failed",
        "passing",
        "passed",
        "broken",
        "new",
        "last",
        "final",
        "latest",
        "earliest",
        "second",
        "every",
        "each",
        "all",
        "both",
        "either",
        "any",
        "same",
        "to",
        "for",
        "of",
        "with",
        "on",
        "in",
        "by",
        "from",
    }
)
# "a date-windowed chats query (--since) rather than all-time counts": what a flag narrows (a
# notion the skill's own sentence about the flag names, "count only within a window"), and the
# words for the command left unnarrowed, which alone make the contrast the flag's complement.
NARROWINGS: dict[str, frozenset[str]] = {
    "window": frozenset({"all-time", "unwindowed"}),
    "filter": frozenset({"unfiltered"}),
}
CONTRASTS: tuple[tuple[str, ...], ...] = (("rather", "than"), ("instead", "of"))
# "searched across all chats": the scope a phrase the skill defines may be said in.
SCOPE_PREPOSITIONS = frozenset({"across", "in"})
TWICE_DEFINED = "(the skill defines the phrase twice,"
# "to the end", "to a file", "to its folder": an extent or a destination, not a purpose, whose
# verb never follows "to" with one of these.
NOT_A_VERB = frozenset(
    {
        "the",
        "a",
        "an",
        "its",
        "their",
        "this",
        "that",
        "these",
        "those",
        "each",
        "every",
        "all",
        "any",
        "some",
        "no",
        "one",
        "it",
        "them",
    }
)
# A purpose of checking states an outcome the author may hold the act to ("to verify it works").
CHECKING = frozenset(
    {"verify", "confirm", "ensure", "check", "prove", "validate", "test", "make", "see"}
)


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True)
class Predicate:
    """One kind of claim: its verb forms, what the claim is about, and where it may appear."""

    name: str
    verbs: frozenset[str]
    participles: frozenset[str]
    nouns: frozenset[str]  # "consultation" (of), "command" (invoking)
    links: frozenset[str]  # the words joining a noun to its objects
    subjects: frozenset[str]
    kinds: frozenset[str]  # what its objects may be called


PREDICATES: tuple[Predicate, ...] = (
    Predicate(
        "consultation",
        words(
            "read reads reading consult consults consulted consulting open opens opened opening"
            " inspect inspects inspected inspecting"
            " load loads loaded loading view views viewed viewing review reviews reviewed"
            " reviewing examine examines examined examining"
        )
        | {"look at", "looks at", "looked at", "looking at"},
        words("read consulted opened inspected loaded viewed reviewed examined") | {"looked at"},
        words("consultation consultations read reads reading inspection inspections"),
        frozenset({"of"}),
        frozenset({"session"}),
        FILE_KINDS,
    ),
    Predicate(
        "command",
        words(
            "run runs ran running execute executes executed executing invoke invokes invoked"
            " invoking call calls called calling use uses used using launch launches launched"
            " launching"
        )
        | {"kick off", "kicks off", "kicked off", "kicking off"},
        words("run executed invoked called used launched") | {"kicked off"},
        words("command commands invocation invocations execution executions run runs"),
        words("of invoking running calling executing using"),
        frozenset({"session"}),
        COMMAND_KINDS,
    ),
    Predicate(
        "file-written",
        words(
            "write writes wrote writing create creates created creating modify modifies modified"
            " modifying edit edits edited editing change changes changed changing update updates"
            " updated updating generate generates generated generating produce produces"
            " produced producing save saves saved saving overwrite overwrites overwrote"
            " overwriting scaffold scaffolds scaffolded scaffolding place places placed placing"
        ),
        words(
            "written created modified edited changed updated generated produced saved overwritten"
            " scaffolded placed"
        ),
        words("write writes change changes modification modifications edit edits"),
        frozenset({"to", "of"}),
        frozenset({"session", "workspace"}),
        FILE_KINDS,
    ),
    Predicate(
        "answer-mentions",
        words(
            "mention mentions include includes contain contains name names say says list lists"
            " cite cites quote quotes give gives report reports reference references show"
            " shows"
        ),
        frozenset(),
        frozenset(),
        frozenset(),
        frozenset({"answer"}),
        ANSWER_KINDS,
    ),
    Predicate(
        # "Mentions `--dry-run`", "the agent says `X`", "explains that `X`": said to the user in
        # any message of the session, not only the last (`checks/agent_said.py`).
        "agent-said",
        words(
            "mention mentions mentioned mentioning say says said state states stated"
            " explain explains explained"
        ),
        frozenset(),
        frozenset(),
        frozenset(),
        frozenset({"session"}),
        ANSWER_KINDS,
    ),
    Predicate(
        # "fetched `URL`", "a fetch to `host`", "downloaded `URL`" (`checks/url_fetched.py`)
        "fetch",
        words(
            "fetch fetches fetched fetching download downloads downloaded downloading"
            " request requests requested requesting"
        ),
        words("fetched downloaded requested"),
        words("fetch fetches download downloads request requests"),
        words("to of from for"),
        frozenset({"session"}),
        FETCH_KINDS,
    ),
)
CONSULTATION, COMMAND, FILE_WRITTEN, ANSWER_MENTIONS, AGENT_SAID, FETCH = PREDICATES
# The verbs of the answer's and the agent's claims: "says `X`" is the statement X, which "I could
# not confirm `X`" holds and denies (`denial.py`); "mentions", "names", "lists", "includes" and
# "quotes" claim only the text's presence.
CLAIMED = words(
    "say says said state states stated report reports reported explain explains explained"
    " show shows showed"
)
# A tool "called" by name may be no shell command: an order of such calls refuses.
CALLS = words("call calls called calling")
# The words of a claim that a thing was called by name, a tool or function as much as a command.
CALLED_BY_NAME = CALLS | words("invoke invokes invoked invoking invocation invocations")
# "explains `X`" is a judgement of an explanation; "explains that `X`" says the literal.
SAID_ONLY_WITH_THAT = words("explain explains explained")
QUANTIFIERS: tuple[tuple[tuple[str, ...], str | None], ...] = (
    (("at", "least", "one", "of", "the"), "any"),
    (("at", "least", "one", "of"), "any"),
    (("at", "least", "one"), "any"),
    (("one", "of", "the"), "any"),
    (("one", "of"), "any"),
    (("any", "of", "the"), "any"),
    (("either",), "either"),
    (("any",), "any"),
    (("both",), "all"),
    (("all", "of", "the"), "all"),
    (("all", "of"), "all"),
    (("a",), None),
    (("an",), None),
    (("the",), None),
    (("some",), None),
    (("neither",), "neither"),
)
NEGATIONS: tuple[tuple[str, ...], ...] = (
    ("never",),
    ("avoids",),  # "avoids reading `X`": the gerund's act does not happen
    ("avoided",),
    ("avoid",),
    ("did", "not"),
    ("does", "not"),
    ("do", "not"),
    ("didn't",),
    ("doesn't",),
    ("not",),
)
_TOKEN = re.compile(r"\u27e8\d+\u27e9|[\u2192\u27f6]|[^\s,/()\u2192\u27f6]+|[,/()]")
# "`A` → `B` → `C`": each file read, in that order ("->" and "=>" only as words of their own).
ARROWS = frozenset({"\u2192", "\u27f6", "->", "=>"})
ORDER_WORDS = frozenset({"before", "after", "prior to", "first", "then", "until", "once"})
_SLOT = re.compile(r"\u27e8(\d+)\u27e9")


@dataclass
class Parse:
    """A parsed sentence: its tree and check, or the word that stopped the parse (and the
    predicate, when one was recognised before it, for the check the author could write)."""

    tree: list[str] = field(default_factory=list)
    check: Check | None = None
    predicate: str | None = None
    refused_at: str | None = None

    @property
    def text(self) -> str:
        return " ".join(self.tree)


class _Refused(Exception):
    def __init__(self, word: str) -> None:
        super().__init__(word)
        self.word = word


# Two words that act as one: a verb and its particle ("looked at"), "prior to" ("before").
PHRASES = frozenset(
    {
        ("look", "at"),
        ("looks", "at"),
        ("looked", "at"),
        ("looking", "at"),
        ("kick", "off"),
        ("kicks", "off"),
        ("kicked", "off"),
        ("kicking", "off"),
        ("prior", "to"),
    }
)


def _phrased(items: list[str]) -> list[str]:
    merged: list[str] = []
    for item in items:
        if merged and (merged[-1], item) in PHRASES:
            merged[-1] = f"{merged[-1]} {item}"
        else:
            merged.append(item)
    return merged


def _verb_forms(verb: str) -> frozenset[str]:
    """A regular verb as a sentence may write it: "search" → searches, searched, searching."""
    stem = verb.removesuffix("e")
    return frozenset(
        {
            verb,
            f"{verb}s",
            f"{verb}es",
            f"{stem}ed",
            f"{stem}ing",
            f"{verb}d" if verb != stem else verb,
        }
    )


class _Tokens:
    def __init__(self, text: str) -> None:
        self.items = _phrased(_TOKEN.findall(text))
        self.at = 0

    def peek(self, ahead: int = 0) -> str | None:
        index = self.at + ahead
        return self.items[index] if index < len(self.items) else None

    def take(self, *words: str) -> bool:
        """Consumes exactly this word sequence when it is next."""
        if tuple(self.items[self.at : self.at + len(words)]) == words:
            self.at += len(words)
            return True
        return False

    def take_any(self, words: frozenset[str]) -> str | None:
        word = self.peek()
        if word is not None and word in words:
            self.at += 1
            return word
        return None

    def take_first(self, sequences: tuple[tuple[str, ...], ...]) -> tuple[str, ...] | None:
        for words in sequences:
            if self.take(*words):
                return words
        return None

    def refuse(self) -> _Refused:
        return _Refused(self.peek() or "(end of sentence)")


@dataclass(frozen=True)
class _Objects:
    values: tuple[str, ...]  # the literals, directories already as globs
    join: str  # "any" or "all"
    equivalent: bool  # "(or equivalent)": any command of the same family
    terms: tuple[Term | None, ...] = ()  # for each value, the skill's command it names


def parse_sentence(
    text: str,
    literals: tuple[str, ...],
    subject: str,
    negated: bool = False,
    vocabulary: SkillVocabulary | None = None,
) -> Parse:
    """Parses a sentence skeleton (lower-cased, literals as ⟨n⟩, lead-in and leading negation
    removed by `criteria._skeleton`; `subject` is what the lead-in named, `negated` whether a
    negation was removed; `vocabulary` the target skill's own commands, if it is known)."""
    tokens = _Tokens(text)
    parse = Parse()
    try:
        parser = _Parser(tokens, parse, literals, subject, negated, vocabulary)
        check = parser.sentence()
        check = parser.joined(check)
        check = parser.outcome(check)
        parser.at_least_once()
        parser.purpose()
        parser.context()
        if tokens.peek() is not None:
            raise tokens.refuse()
        if (negated or parser.negated) and parser.plain_and:
            # "never reads `A` and `B`": neither, or not both? Say "`A` or `B`" (neither) or
            # "both `A` and `B`" (not both).
            raise _Refused("and")
        if parser.neither:
            if negated or parser.negated or parse.predicate not in NEITHER_CLAIMS:
                raise _Refused("neither")  # a double denial, an order, a second claim
            parse.predicate = f"not {parse.predicate}"
            parse.tree.append("(neither: denied)")
            check = NotCheck(operand=check)
    except _Refused as refused:
        parse.refused_at = refused.word
        return parse
    parse.check = check
    return parse


class _Parser:
    def __init__(
        self,
        tokens: _Tokens,
        parse: Parse,
        literals: tuple[str, ...],
        subject: str,
        negated_before: bool = False,
        vocabulary: SkillVocabulary | None = None,
    ) -> None:
        self.tokens, self.parse, self.subject = tokens, parse, subject
        # Bare words of the skill's vocabulary join the literals as the parse takes them.
        self.literals = list(literals)
        self.given = len(literals)  # the backticked ones; a slot mark past them is no literal
        self.vocabulary = vocabulary
        self.terms: dict[int, Term] = {}
        if vocabulary is not None:  # "`stats`" is the skill's command as much as "stats"
            for index, literal in enumerate(literals):
                term = vocabulary.term(literal)
                if term is not None:
                    self.terms[index] = term
        self.negated_before = negated_before  # a negation the skeleton already removed
        self.negated = False  # a negation the parser read
        self.plain_and = False  # a list joined by "and" without "both" or "all of"
        self.predicates = [p for p in PREDICATES if subject in p.subjects]
        self.first = False  # "first" said before the verb
        self.shown: str | None = None  # the evidence verb ("shows", "includes") it began with
        self.said_also = False
        self.neither = False  # "neither `A` nor `B`": the claim of any of them, denied
        # A claim about what the agent said: "before answering" is then no restatement of the
        # case (said before the final answer, or in it?), so it refuses.
        self.said_text = False
        self.it = False  # the agent was "it": the agent, or a reply it makes?
        self.verb = ""  # the claim's verb, as written
        self.contrast_node = ""  # "rather than X": how its complement was read, for the tree

    def node(self, text: str) -> None:
        self.parse.tree.append(text)

    def valued(self) -> frozenset[str]:
        """The skill's flags it shows with a value (`--since <date>`)."""
        return self.vocabulary.valued if self.vocabulary is not None else frozenset()

    def sentence(self) -> Check:
        tokens = self.tokens
        self.also()
        if self.subject == "session":
            start = tokens.at
            # "The session should show (that) ...": the modal says only that it is expected.
            modal = tokens.take_first(EVIDENCE_MODALS)
            shown = tokens.take_any(SHOW_VERBS)
            if modal and shown is None:
                tokens.at = start
                modal = None
            self.shown = shown
            if shown:
                self.node(f"(evidence {' '.join((*(modal or ()), shown))})")
                tokens.take("evidence", "of")
            tokens.take("that")
            self.agent()
            self.also()
        elif self.subject == "answer":  # "In its final answer, the assistant mentions `X`"
            self.agent()
        negated = tokens.take_first(NEGATIONS) is not None
        modal = tokens.take_first(MODALS)
        if modal in NECESSITIES and (negated or self.negated_before):
            # "does not need to read `X`": reading it is optional, not forbidden.
            raise _Refused(modal[0])
        if modal:
            self.node(f"(modal {' '.join(modal)})")
            negated = negated or tokens.take_first((("not",), ("never",), ("avoid",))) is not None
        if negated:
            self.node("(negation)")
            self.negated = True
        if self.subject == "workspace" and tokens.take_any(
            frozenset({"contains", "contain", "has", "have", "holds", "hold"})
        ):
            # "The workspace contains `X`": the file exists there.
            self.parse.predicate = "workspace-file-exists"
            self.node("(predicate exists)")
            tokens.take_any(frozenset({"a", "an"}))
            tokens.take_any(frozenset({"file", "files"}))
            tokens.take_any(frozenset({"named", "matching", "at"}))
            objects = self.objects(None)
            exists = combine(
                [
                    WorkspaceFileExistsCheck(kind="workspace_file_exists", path=v)
                    for v in objects.values
                ],
                objects.join,
            )
            return NotCheck(operand=exists) if negated else exists
        check = self.clause()
        return NotCheck(operand=check) if negated else check

    def agent(self) -> None:
        """ "the agent", "the coding agent", "the AI assistant", "it": who acted, the one agent
        of the session ("it" opening a sentence; in a condition's consequence "it" is the
        condition's literal, replaced before the grammar reads it: `criteria._conditional`).
        An agent's product name is no subject here: only its adapter names an agent."""
        tokens = self.tokens
        start = tokens.at
        if tokens.take("the"):
            tokens.take_any(AGENT_MODIFIERS)
            if tokens.take_any(AGENTS) is None:
                tokens.at = start
        elif self.named_agent() is None and tokens.take("it"):
            self.it = True
        if tokens.at > start:
            self.node(f"(agent {' '.join(tokens.items[start : tokens.at])})")

    def named_agent(self) -> str | None:
        """An agent by its product's name ("Codex", "Claude Code"): the names come as data with
        the vocabulary (`adapters.agent_names`), the longest first; the session has one agent."""
        names = self.vocabulary.agents if self.vocabulary is not None else ()
        for name in sorted(names, key=lambda n: len(n.split()), reverse=True):
            if self.tokens.take(*name.split()):
                return name
        return None

    def joined(self, check: Check) -> Check:
        """A second claim joined to the first: "read `A` and ran `B`" (both), "ran `A` and (but)
        not (never) `B`", "reads `A` without opening `B`" (the second denied). Each is a claim of
        its own with every word accounted for; after a denial ("never reads `A` and runs `B`":
        which does "never" cover?) it refuses."""
        tokens = self.tokens
        start = tokens.at
        tokens.take(",")
        if (
            isinstance(check, FileWrittenCheck)
            and not (self.negated or self.negated_before)
            and tokens.take("and", "it")
            and tokens.take_any(CONTAINS | {"mentions", "mention"})
        ):
            # "created `report.md` and it mentions `revenue`": the file as the attempt left it
            return AllOfCheck(operands=[check, self.containing((check.path,))])
        tokens.at = start
        tokens.take(",")
        joint = tokens.take_any(frozenset({"and", "but", "without"}))
        if joint is None:
            tokens.at = start
            return check
        first = self.parse.predicate
        denied = joint == "without" or tokens.take_any(frozenset({"not", "never"})) is not None
        if not denied:
            tokens.take("also")
        verb: str | None = None
        predicate: Predicate | None = None
        for candidate in self.predicates:
            verb = tokens.take_any(candidate.verbs)
            if verb is not None:
                predicate = candidate
                break
        if predicate is None and denied and joint != "without":
            # "ran `A` and not `B`": the first claim's act, denied
            predicate = next((p for p in self.predicates if p.name == first), None)
        if predicate is None or verb in predicate.nouns:
            tokens.at = start
            return check
        if self.negated or self.negated_before:
            raise _Refused(joint)
        if verb is not None:
            verb = self.alternative_verb(predicate.verbs, verb)  # "and creates or updates"
        self.node(f"({'denied ' if denied else ''}{joint})")
        tree = len(self.parse.tree)
        if denied:
            self.negated = True  # no order, purpose or outcome may follow a denial
        # The first claim's "`A` and `B`" is asserted; only a list the denial covers is unclear
        # ("but never `C` and `D`": neither, or not both?).
        self.plain_and = False
        other = self.predicate_clause(predicate, verb or "(same)")
        if denied and self.plain_and:
            raise _Refused("and")
        self.plain_and = False
        if denied and self.parse.predicate in ("read-first", "read-before"):
            raise _Refused(joint)  # "but not `B` first": not at all, or not first?
        self.parse.tree.insert(tree, "(")
        self.node(")")
        self.parse.predicate = "conjunction"
        if denied:
            other = NotCheck(operand=other)
        return AllOfCheck(operands=[check, other])

    def alternative_verb(self, forms: frozenset[str], verb: str) -> str:
        """ "creates or updates `X`", "`X` is read or opened": two verbs of one predicate joined
        by "or" are one claim of that act (its check counts every verb of the lexicon alike:
        a write is a creation or a change, a read an opening or a view). Only "or": "created
        and updated" says two acts, which one check does not count. The verb kept is the one
        that narrows most: a name "called" may be a tool, not a command (`CALLED_BY_NAME`)."""
        tokens = self.tokens
        start = tokens.at
        if not tokens.take("or"):
            return verb
        other = tokens.take_any(forms)
        if other is None or other == verb:
            tokens.at = start
            return verb
        self.node(f"(or {other}: the same act)")
        if other.split(" ")[0] in CALLED_BY_NAME:
            return other
        return verb

    def also(self) -> None:
        """ "The session also shows", "the agent also read": an entry's criteria all hold, so
        "also" adds nothing to a claim. After a denial ("never also reads `B`": not besides
        something else) it would: it is left to refuse there."""
        if not self.negated_before and not self.said_also and self.tokens.take("also"):
            self.said_also = True
            self.node("(also: adds nothing)")

    def clause(self) -> Check:
        tokens = self.tokens
        hard_coded = self.hard_coded()
        if hard_coded is not None:
            return hard_coded
        invoked = self.skill_invoked()
        if invoked is not None:
            return invoked
        start = tokens.at
        adverb = tokens.take_any(SUCCESSFUL)
        self.first = tokens.take("first")  # "the agent first reads `SKILL.md`"
        for predicate in self.predicates:
            verb = tokens.take_any(predicate.verbs)
            if verb is not None and self.first and predicate is not CONSULTATION:
                raise _Refused("first")  # first of what? only reads have an order here
            if verb is not None and adverb is not None:
                if predicate is not CONSULTATION:  # "successfully ran `X`": say it after the verb
                    raise _Refused(adverb)
                self.node(f"({adverb}: content shown)")
            if verb is not None:
                if verb in predicate.nouns and tokens.peek() != "or":  # "shows reads of `X`"
                    verb += f" {tokens.take_any(predicate.links) or ''}".rstrip()
                else:
                    verb = self.alternative_verb(predicate.verbs, verb)
                return self.predicate_clause(predicate, verb)
        tokens.at = start
        self.first = False
        for predicate in self.predicates:
            for words, _ in ((("",), None), *QUANTIFIERS):
                tokens.at = start
                if words != ("",) and not tokens.take(*words):
                    continue
                while tokens.take_any(NEUTRAL):  # "a shell command"
                    pass
                successful = predicate is CONSULTATION and tokens.take_any(SUCCESSFUL)
                noun = tokens.take_any(predicate.nouns)
                if noun is None:
                    continue
                tokens.take("that")  # "a command that runs `X`"
                link = tokens.take_any(predicate.links | predicate.verbs)
                if link is None:
                    raise tokens.refuse()
                if successful:
                    self.node(f"({successful}: content shown)")
                return self.predicate_clause(predicate, f"{noun} {link}")
        tokens.at = start
        phrase = self.documented_phrase()
        if phrase is not None:
            return phrase
        return self.passive()

    def skill_invoked(self) -> Check | None:
        """ "invokes the `loop-builder` skill", "the loop-builder skill is (not) invoked"
        (loaded, triggered, activated, used), "the loop-builder skill fires": the skill fired,
        by the agent's own trigger signal (`skill_invoked`, what `agentic-eval triggers`
        reads). Only the skill under test is watched: a skill named otherwise (another of the
        repo's skills, "the main skill") refuses at its name, and one not named at all ("the
        skill": which?) is no such claim. None, with nothing consumed, when this is not one."""
        tokens = self.tokens
        start = tokens.at
        active = tokens.take_any(SKILL_INVOKING)
        if not tokens.take("the"):
            tokens.at = start
            return None
        named_at = tokens.at
        slot = _SLOT.fullmatch(tokens.peek() or "")
        word = tokens.peek() or ""
        if slot is not None and int(slot.group(1)) < self.given:
            name = self.literals[int(slot.group(1))].lower()
        elif _SKILL_NAME.fullmatch(word):
            name = word
        else:
            tokens.at = start
            return None
        tokens.at += 1
        if not tokens.take("skill"):
            tokens.at = start
            return None
        negated = False
        if active is None:
            if tokens.take_any(BE):
                negated = tokens.take_first((("not",), ("never",))) is not None
                if tokens.take_any(SKILL_INVOKED) is None:
                    raise tokens.refuse()
            elif tokens.take_any(SKILL_FIRES) is None:
                tokens.at = start
                return None
        self.parse.predicate = "skill-invoked"
        target = self.vocabulary.skill if self.vocabulary is not None else None
        if name != target:
            raise _Refused(tokens.items[named_at])
        self.node(f"(predicate {'not ' if negated else ''}skill-invoked: {name}, the target skill)")
        check: Check = SkillInvokedCheck(kind="skill_invoked", skill=name)
        if negated:
            self.negated = True
            self.parse.predicate = "not skill-invoked"
            check = NotCheck(operand=check)
        return check

    def documented_phrase(self) -> Check | None:
        """ "searched across all chats", where the skill says "Omit `--chat-id` to search all
        chats": a verb phrase the skill defines by one of its flags names that subcommand run
        without (or, "Pass `--x` to ...", with) the flag. Every word must be the phrase's own
        (the verb in any tense; "all X" also said "every X", after "across" or "in"); "not just
        one" after "all" restates it. A phrase the skill defines twice differently, a denial
        (the act may be done another way than the skill's command) and a loose match refuse."""
        tokens = self.tokens
        if self.vocabulary is None or not self.vocabulary.phrases or self.subject != "session":
            return None
        start, tree = tokens.at, len(self.parse.tree)
        word = tokens.peek() or ""
        # Every phrase the words may say, each tried from the verb on: (its end, its nodes).
        matches: list[tuple[int, list[str], tuple[str, ...], DefinedPhrase]] = []
        verb_known = False
        for words, defined in self.vocabulary.phrases.items():
            verb, *objects = words
            if word not in _verb_forms(verb):
                continue
            verb_known = True
            tokens.at = start + 1
            if self.phrase_objects(tuple(objects)):
                nodes = self.parse.tree[tree:]
                matches += [(tokens.at, nodes, words, meaning) for meaning in defined]
            del self.parse.tree[tree:]
        tokens.at = start
        if not matches:
            if verb_known:  # the verb is the skill's; what follows is not its phrase
                tokens.at = start + 1
                raise tokens.refuse()
            return None
        meanings = {m.meaning() for _, _, _, m in matches}
        if len(meanings) > 1:
            said = "; ".join(dict.fromkeys(f'"{m.sentence}"' for _, _, _, m in matches))
            phrases = " / ".join(dict.fromkeys(" ".join(w) for _, _, w, _ in matches))
            self.node(f"{TWICE_DEFINED} {phrases}: {said})")
            raise _Refused(word)
        if self.negated or self.negated_before:
            raise _Refused(word)
        at, nodes, words, meaning = max(matches, key=lambda m: m[0])
        tokens.at = at
        how = "with" if meaning.present else "without"
        self.parse.predicate = "command"
        self.node(
            f"(phrase {' '.join(words)} = {meaning.subcommand} [subcommand of"
            f' {meaning.script}] {how} {meaning.flag}: skill sentence "{meaning.sentence}")'
        )
        self.parse.tree += nodes
        if meaning.present:
            return skill_command_check(
                meaning.script,
                meaning.subcommand,
                "subcommand",
                (meaning.flag,),
                self.vocabulary.valued,
            )
        return skill_command_without(
            meaning.script, meaning.subcommand, meaning.flag, abbreviated=True
        )

    def phrase_objects(self, objects: tuple[str, ...]) -> bool:
        """The phrase's objects as the sentence says them: exactly, or "all X" as "(across|in)
        all X" or "every X", then "not (just|only|merely) one [X]"."""
        tokens = self.tokens
        if objects and objects[0] == "all" and len(objects) == 2:
            noun = objects[1]
            tokens.take_any(SCOPE_PREPOSITIONS)
            if not (tokens.take("all", noun) or tokens.take("every", noun.removesuffix("s"))):
                return False
            start = tokens.at
            tokens.take(",")
            if (
                tokens.take("not")
                and tokens.take_any(frozenset({"just", "only", "merely"}))
                and tokens.take("one")
            ):
                tokens.take(noun.removesuffix("s"))
                self.node("(not just one: restates all)")
                return True
            tokens.at = start
            return True
        return tokens.take(*objects)

    def outcome(self, check: Check) -> Check:
        """`X` ran "successfully": its exit code was 0; a read is "successful" when its content
        reached the agent, which is what a read means here already."""
        word = self.tokens.take_any(SUCCESSFUL)
        if word is None:
            return check
        if self.parse.predicate in ("consultation", "read-first", "read-before"):
            self.node(f"({word}: content shown)")
            return check
        if self.parse.predicate == "command" and isinstance(
            check, CommandRanCheck | ScriptRanCheck
        ):
            self.node(f"({word}: exit code 0)")
            return check.model_copy(update={"exit_code": 0})
        raise _Refused(word)  # several commands, a negation: which one had to succeed?

    def at_least_once(self) -> None:
        """ "reads `a.md` at least once": a claim of an act is a claim of one or more, so this
        adds nothing. Denied ("never ... at least once") or after an order, a second claim or
        several acts it would say more (more than once? every time?): refused there."""
        if not self.tokens.take("at", "least", "once"):
            return
        plain = ("consultation", "command", "file-written", "fetch")
        if self.negated or self.negated_before or self.parse.predicate not in plain:
            raise _Refused("at")
        self.node("(at least once: adds nothing)")

    def purpose(self) -> None:
        """ "ran `stats` to size up the chat": why the agent acted, which no record shows beyond
        the act itself; dropped from a claim that an act happened, refused anywhere else (a
        denial of an act for one purpose allows it for another)."""
        tokens = self.tokens
        lead = tokens.take_first(PURPOSE_LEADS)
        if lead is None:
            return
        if self.negated or self.negated_before:
            raise _Refused(lead[0])
        # After a write, "to" names where or how it was written ("wrote the log to disk").
        if self.parse.predicate not in ("command", "consultation"):
            raise _Refused(lead[0])
        first = tokens.peek() or ""
        if first in NOT_A_VERB or not first.replace(" ", "").isalpha():  # "look at"
            raise tokens.refuse()  # "to the end", "to 100 lines": an extent, not a purpose
        said: list[str] = []
        while tokens.peek() is not None and not self.at_context():
            word = tokens.peek()
            assert word is not None
            if word in PURPOSE_STOPS or _SLOT.fullmatch(word) or (not said and word in CHECKING):
                raise tokens.refuse()
            said.append(word)
            tokens.at += 1
        if len(said) < 2:  # "to completion": an outcome; a purpose's verb has an object
            raise _Refused(said[0] if said else lead[-1])
        self.node(f"(purpose dropped: {' '.join((*lead, *said))})")

    def context(self) -> None:
        """What only restates the case: "for a clearly RTC-specific request" (the case's prompt
        is the request), "before the answer" (the session ends with the answer)."""
        tokens = self.tokens
        start = tokens.at
        if tokens.take("for") and tokens.take_any(frozenset({"a", "an", "the", "this", "that"})):
            while tokens.peek() is not None and tokens.peek() not in REQUESTS:
                if tokens.peek() in (",", "(", ")") or _SLOT.fullmatch(tokens.peek() or ""):
                    break
                tokens.at += 1
            if tokens.take_any(REQUESTS) and tokens.peek() is None:
                self.node(f"(context {' '.join(tokens.items[start : tokens.at])})")
                return
        tokens.at = start
        if (
            tokens.take_any(frozenset({"appears", "appeared"}))
            and tokens.take("in", "the")
            and tokens.take_any(SESSION_NAMES)
            and tokens.peek() is None
        ):  # "... appears in the session": the session shows it
            self.node(f"(context {' '.join(tokens.items[start : tokens.at])})")
            return
        tokens.at = start
        tokens.take_any(BE)
        if tokens.take_any(OBSERVED) and tokens.peek() is None:  # "... is observed"
            self.node(f"(context {' '.join(tokens.items[start : tokens.at])})")
            return
        tokens.at = start
        if (
            self.subject == "session"
            and not self.said_text
            and tokens.take("before")
            and (
                tokens.take_any(ANSWERING)
                or (
                    tokens.take_first(
                        (("the", "final"), ("its", "final"), ("the",), ("its",), ("a",))
                    )
                    and tokens.take_any(ANSWERS)
                )
            )
            and tokens.peek() is None
        ):
            self.node(f"(context {' '.join(tokens.items[start : tokens.at])})")
            return
        tokens.at = start

    def predicate_clause(self, predicate: Predicate, verb: str) -> Check:
        self.verb = verb
        self.parse.predicate = predicate.name
        self.node(f"(predicate {predicate.name}: {verb})")
        if predicate is ANSWER_MENTIONS:
            url = self.any_url()
            if url is not None:
                return url
            self.link_to()
        if predicate is COMMAND:
            described = self.described()
            if described is not None:
                return described
        if predicate is AGENT_SAID:
            if self.it:  # "It mentions `x`": the agent, or the answer it makes?
                raise _Refused(verb)
            self.said_text = True
            if not self.tokens.take("that") and verb in SAID_ONLY_WITH_THAT:
                raise _Refused(verb)
        objects = self.located(predicate, self.objects(predicate))
        if predicate is FETCH:
            self.attempted()
        return self.ordered(predicate, objects)

    def passive(self) -> Check:
        """`X` was (never) read (by the agent); `X` exists (in the workspace)."""
        tokens = self.tokens
        if self.subject in ("session", "workspace"):
            if self.any_file_containing():
                return self.containing(("**/*",))
            untouched = self.no_file_written() or self.workspace_unchanged()
            if untouched is not None:
                return untouched
            objects = self.objects(None)
            if tokens.take_any(CONTAINS):
                return self.containing(objects.values)
            denied = tokens.take_first(DENIED_STATE) is not None
            if denied and tokens.take_any(frozenset({"contain", "include"})):
                # "`app.py` does not contain `print(`"
                self.negated = True
                contained = self.containing(objects.values)
                self.parse.predicate = "not workspace-file-contains"
                return NotCheck(operand=contained)
            if tokens.take_any(COMMAND_NOUNS):  # "no `rm -rf` command (was run, is observed)"
                self.parse.predicate = COMMAND.name
                self.node(f"(predicate {COMMAND.name}: command)")
                start = tokens.at
                if not (tokens.take_any(BE) and tokens.take_any(COMMAND.participles)):
                    tokens.at = start
                return self.claim(COMMAND, objects)
            if (
                self.shown
                and self.subject == "session"
                and all(_file_like(v) for v in objects.values)
                and (tokens.peek() is None or tokens.peek() in ARROWS or self.at_context())
            ):
                # "The accepted trace includes `X.md`": the file's content is in the session,
                # which is what a read is here ("shows `A` → `B`": both, in that order).
                self.parse.predicate = CONSULTATION.name
                self.node(f"(predicate {CONSULTATION.name}: {self.shown})")
                if tokens.peek() in ARROWS:
                    sequence = self.then_read(objects, files_only=True)
                    if sequence is not None:
                        return sequence
                return self.claim(CONSULTATION, objects)
            present = False
            if not denied:
                # "`out.json` is (not) present (in the workspace)": it exists, as "exists" says
                start = tokens.at
                if tokens.take_any(frozenset({"is", "are"})):
                    denied = tokens.take("not")
                    present = tokens.take("present")
                    if not present:
                        tokens.at, denied = start, False
                    elif not all(_file_like(v) for v in objects.values):
                        raise _Refused("present")  # a text is present somewhere: where?
            if present or tokens.take_any(frozenset({"exists", "exist"})):
                self.parse.predicate = "workspace-file-exists"
                self.node(f"(predicate {'not ' if denied else ''}exists)")
                if tokens.take("in", "the"):
                    tokens.take("attempt")
                    if not tokens.take("workspace"):
                        raise tokens.refuse()
                    self.node("(scope workspace)")
                exists = combine(
                    [
                        WorkspaceFileExistsCheck(kind="workspace_file_exists", path=v)
                        for v in objects.values
                    ],
                    objects.join,
                )
                if denied:
                    self.negated = True
                    self.parse.predicate = "not workspace-file-exists"
                    return NotCheck(operand=exists)
                return self.and_contains(exists, objects)
            if denied:
                raise tokens.refuse()
            if not tokens.take_any(BE):
                raise tokens.refuse()
            negated = tokens.take_first((("never",), ("not",))) is not None
            self.negated = self.negated or negated
            if not negated and self.left_unchanged():
                self.parse.predicate = f"not {FILE_WRITTEN.name}"
                self.negated = True
                written = self.claim(FILE_WRITTEN, objects)
                return NotCheck(operand=written)
            if not negated and self.first_read(objects):
                return ReadBeforeCheck(
                    kind="read_before", first=_single(objects, "first"), then="*"
                )
            if (
                objects.join == "all"
                and len(objects.values) > 1
                and tokens.take_any(frozenset({"both", "all"}))
            ):
                self.node("(quantifier both)")  # "`A` and `B` were both read": all of them
                self.plain_and = False
            for predicate in self.predicates:
                participle = tokens.take_any(predicate.participles)
                if participle is None:
                    continue
                participle = self.alternative_verb(predicate.participles, participle)
                self.parse.predicate = predicate.name
                self.node(f"(predicate {'not ' if negated else ''}{predicate.name}: {participle})")
                tokens.take("by", "the", "agent")
                objects = self.located(predicate, objects)
                tokens.take("by", "the", "agent")
                check = self.ordered(predicate, objects)
                return NotCheck(operand=check) if negated else check
        raise tokens.refuse()

    def no_file_written(self) -> Check | None:
        """ "No file (in the workspace) is modified, created or deleted": no write at all, whose
        denial (the skeleton's "no") wraps this. `file_written` counts a creation, a change and a
        deletion, so only participles that name all three say as much: "no file is modified"
        leaves creating one open, and "deleted" alone is no write of any other kind."""
        tokens = self.tokens
        start = tokens.at
        if not (self.negated_before and tokens.take_any(frozenset({"file", "files"}))):
            return None
        if tokens.take("in", "the"):
            tokens.take("attempt")
            if not tokens.take("workspace"):
                raise tokens.refuse()
        if not tokens.take_any(BE):
            tokens.at = start
            return None
        said: list[str] = []
        kinds: set[str] = set()
        while (word := tokens.take_any(frozenset(WRITE_KINDS))) is not None:
            said.append(word)
            kinds |= WRITE_KINDS[word]
            while tokens.peek() in (",", "or"):
                tokens.at += 1
        tokens.take("by", "the", "agent")
        if not said or tokens.peek() is not None:
            raise tokens.refuse()  # "no file is modified and ...", "... by the agent"
        if kinds != {"create", "change", "delete"}:
            raise _Refused(said[-1])
        self.parse.predicate = FILE_WRITTEN.name
        self.node(f"(predicate file-written, any file: {', '.join(said)})")
        return FileWrittenCheck(kind="file_written", path="*")

    def workspace_unchanged(self) -> Check | None:
        """ "The workspace is (left) unchanged", "remains unmodified": nothing in it was created,
        changed or deleted, which is no write at all."""
        tokens = self.tokens
        start, tree = tokens.at, len(self.parse.tree)
        if self.subject != "workspace" or self.negated_before or self.negated:
            return None
        if tokens.take_any(BE | REMAINS) and self.left_unchanged() and tokens.peek() is None:
            self.parse.predicate = f"not {FILE_WRITTEN.name}"
            self.node("(any file)")
            return NotCheck(operand=FileWrittenCheck(kind="file_written", path="*"))
        tokens.at = start
        del self.parse.tree[tree:]
        return None

    def left_unchanged(self) -> bool:
        """ "`X` is (left) unchanged": the agent did not write it."""
        tokens = self.tokens
        start = tokens.at
        tokens.take("left")
        if tokens.take_any(frozenset({"unchanged", "unmodified"})):
            self.node("(predicate not file-written: unchanged)")
            return True
        tokens.at = start
        return False

    def first_read(self, objects: _Objects) -> bool:
        """ "`X` is the first file (that) the agent reads (read, opens, opened)"."""
        tokens = self.tokens
        start, tree = tokens.at, len(self.parse.tree)
        if tokens.take("the", "first") and tokens.take_any(FILE_KINDS):
            tokens.take("that")
            self.agent()
            if tokens.take_any(CONSULTATION.verbs) and tokens.peek() is None:
                self.parse.predicate = "read-first"
                self.node("(order first)")
                return True
        tokens.at = start
        del self.parse.tree[tree:]
        return False

    def and_contains(self, exists: Check, objects: _Objects) -> Check:
        """ "`report.md` exists and mentions (contains, includes) `Total`": the file is there
        with that text in it."""
        tokens = self.tokens
        start = tokens.at
        if not (tokens.take("and") and tokens.take_any(CONTAINS | {"mentions", "mention"})):
            tokens.at = start
            return exists
        contains = self.containing(objects.values)
        return AllOfCheck(operands=[exists, contains])

    def any_file_containing(self) -> bool:
        """ "A file (exists) (in the workspace) (that) contains": any file the agent could have
        left, not one it named."""
        tokens = self.tokens
        start = tokens.at
        tokens.take_any(frozenset({"a", "an", "any"}))
        if tokens.take_any(frozenset({"file", "files"})):
            tokens.take_any(frozenset({"exists", "exist"}))
            if tokens.take("in", "the"):
                tokens.take("attempt")
                if not tokens.take("workspace"):
                    raise tokens.refuse()
            tokens.take("that")
            if tokens.take_any(CONTAINS):
                self.node("(file any) (scope workspace)")
                return True
        tokens.at = start
        return False

    def containing(self, paths: tuple[str, ...]) -> Check:
        """`X` contains `Y`: the file's content as the attempt left it."""
        if len(paths) != 1:
            raise _Refused("contains")  # several files each, or one of them: not one meaning
        self.parse.predicate = "workspace-file-contains"
        self.node("(predicate contains)")
        variable = self.declared_variable()
        if variable is not None:
            self.parse.predicate = "workspace-env-value"
            return WorkspaceEnvValueCheck(
                kind="workspace_env_value", variable=variable, path=paths[0]
            )
        texts = self.objects(ANSWER_MENTIONS)
        checks: list[Check] = [
            WorkspaceFileContainsCheck(kind="workspace_file_contains", path=paths[0], text=v)
            for v in texts.values
        ]
        return combine(checks, texts.join)

    def hard_coded(self) -> Check | None:
        """ "The code hard-codes X", "(the agent) never hard-coded X", "X is (not) hard-coded (in
        a file, in `app.py`)": a workspace file holds the value of the variable X names. Only
        for a sentence that says so, in a case that declares variables."""
        tokens = self.tokens
        if not (self.vocabulary and self.vocabulary.variables):
            return None
        if not set(tokens.items[tokens.at :]) & (HARD_CODES | HARD_CODED):
            return None
        start = tokens.at
        if tokens.take("the", "code"):
            self.node("(subject the code)")
        negated = tokens.take_first(NEGATIONS) is not None
        verb = tokens.take_any(HARD_CODES | HARD_CODED)
        if verb is not None:
            variable = self.declared_variable()
            if variable is None:
                raise tokens.refuse()
        else:
            if negated or tokens.at > start:
                raise tokens.refuse()
            variable = self.declared_variable()
            if variable is None:
                return None
            if not tokens.take_any(BE):
                raise tokens.refuse()
            negated = tokens.take_first((("never",), ("not",))) is not None
            verb = tokens.take_any(HARD_CODED)
            if verb is None:
                raise tokens.refuse()
        self.parse.predicate = "workspace-env-value"
        self.node(f"(predicate {'not ' if negated else ''}holds value: {verb})")
        check = WorkspaceEnvValueCheck(
            kind="workspace_env_value", variable=variable, path=self.hard_code_place()
        )
        if negated:
            self.negated = True
            self.parse.predicate = "not workspace-env-value"
            return NotCheck(operand=check)
        return check

    def hard_code_place(self) -> str:
        """ "in a file", "in the workspace", "in the code" (any file: "**/*"), or "in `app.py`"."""
        tokens = self.tokens
        start = tokens.at
        if not tokens.take("in"):
            return "**/*"
        slot = _SLOT.fullmatch(tokens.peek() or "")
        if slot is not None and int(slot.group(1)) < self.given:
            tokens.at += 1
            path = self.literals[int(slot.group(1))]
            self.node(f"(scope {path})")
            return path
        tokens.take_any(frozenset({"a", "an", "any", "the", "some"}))
        while tokens.take_any(NEUTRAL):
            pass
        if tokens.take_any(HARD_CODE_PLACES) is None:
            tokens.at = start
            return "**/*"
        tokens.take("code")  # "in the source code"
        self.node(f"(scope {' '.join(tokens.items[start : tokens.at])}: any file)")
        return "**/*"

    def declared_variable(self) -> str | None:
        """The one variable the case declares that the phrase next names: "the (literal) app
        certificate", "the app ID's value", "the value of the API key", "the value of
        `AGORA_APP_ID`". Each word of the name must be a part of the variable's
        (`AGORA_APP_CERTIFICATE`: agora, app, certificate). None, with nothing consumed, when
        no phrase of a variable is next (its words are in no variable's name, or a literal
        follows them: "the string `x`"); a phrase that names no variable or several refuses."""
        variables = self.vocabulary.variables if self.vocabulary is not None else ()
        if not variables:
            return None
        tokens = self.tokens
        start = tokens.at
        tokens.take_any(frozenset({"the", "a", "an"}))
        while tokens.take_any(VALUE_MODIFIERS):
            pass
        of_value = tokens.peek() in VALUE_NOUNS and tokens.peek(1) == "of"
        if of_value:
            tokens.at += 2
            tokens.take("the")
            while tokens.take_any(VALUE_MODIFIERS):
                pass
            slot = _SLOT.fullmatch(tokens.peek() or "")
            if slot is not None and int(slot.group(1)) < self.given:
                literal = self.literals[int(slot.group(1))]
                if literal not in variables:
                    raise tokens.refuse()  # the value of something the case does not give
                tokens.at += 1
                self.node(f"(value of {literal}: {' '.join(tokens.items[start : tokens.at])})")
                return literal
        said: list[str] = []
        possessive = False
        while (word := tokens.peek()) is not None and _NAME_WORD.fullmatch(word):
            if word in NAME_STOPS:
                break
            said.append(word)
            tokens.at += 1
            if word.endswith(("'s", "\u2019s")):  # "the app ID's value"
                if of_value or tokens.take_any(VALUE_NOUNS) is None:
                    raise tokens.refuse()
                possessive = True
                break
        if said and not (of_value or possessive) and said[-1] in VALUE_NOUNS:
            said.pop()  # "the app ID value"
        words = [w.removesuffix("'s").removesuffix("\u2019s") for w in said]
        parts = {v: frozenset(re.split(r"[^a-z0-9]+", v.lower())) for v in variables}
        known = [w for w in words if any(w in p for p in parts.values())]
        if not known or _SLOT.fullmatch(tokens.peek() or ""):
            if of_value:
                raise tokens.refuse()
            tokens.at = start  # not a variable's phrase: the words are the claim's own
            return None
        matching = [v for v, p in parts.items() if all(w in p for w in words)]
        if len(matching) != 1:
            # A word of no variable's name, or words that several share: which value?
            unknown = [s for s, w in zip(said, words, strict=True) if w not in known]
            raise _Refused(unknown[0] if unknown else said[-1])
        self.node(f"(value of {matching[0]}: {' '.join(tokens.items[start : tokens.at])})")
        return matching[0]

    def objects(self, predicate: Predicate | None) -> _Objects:
        tokens = self.tokens
        quantifier: str | None = None
        for words, meaning in QUANTIFIERS:
            if tokens.take(*words):
                quantifier = meaning
                self.node(f"(quantifier {' '.join(words)})")
                break
        kinds = predicate.kinds if predicate is not None else FILE_KINDS
        # "anything inside `vendor/`": any file there
        if (
            quantifier is None
            and kinds == FILE_KINDS
            and tokens.peek(1) in SCOPES
            and tokens.take("anything")
        ):
            quantifier = "any"
            self.node("(quantifier anything)")
        self.modifiers(kinds)
        scope = tokens.take_any(SCOPES)
        if scope:
            tokens.take("the")
            tokens.take_any(DIRECTORY)
            self.node(f"(scope {scope})")
        indexes, joins = self.literal_list(kinds)
        if tokens.take_any(DIRECTORY):
            scope = scope or "directory"
        named = kinds | (COMMAND_NAMES if all(i in self.terms for i in indexes) else frozenset())
        while tokens.take_any(named):  # "stats subcommand": what the skill calls it
            pass
        equivalent = False
        if predicate is not None and predicate.name == "command":
            equivalent = self.or_equivalent()
        if (quantifier == "neither") != ("nor" in joins):
            raise _Refused("neither" if quantifier == "neither" else "nor")
        if quantifier == "neither":
            # "neither `A` nor `B`": none of them; the claim is denied once it is parsed.
            if self.negated or self.negated_before or self.neither or joins - {"nor"}:
                raise _Refused("neither")
            self.neither = True
            quantifier, joins = "any", {"or"}
        join = _join(joins, quantifier, equivalent)
        self.plain_and = self.plain_and or ("and" in joins and quantifier is None)
        if join is None:
            raise _Refused(" ".join(sorted(joins - {","})) or "(list)")
        terms = tuple(self.terms.get(i) for i in indexes)
        for i, term in zip(indexes, terms, strict=True):
            # The skill's commands are run, nothing else: "the answer mentions stats" is a word.
            if term is not None and (predicate is not COMMAND or equivalent):
                raise _Refused(self.literals[i])
        values = []
        for i in indexes:
            value = self.literals[i]
            if _PLACEHOLDER_WORD.search(value):
                value = self.placeholder_glob(value, predicate)
            if (
                (scope or value.endswith("/"))
                and (predicate is None or predicate.name not in ("command", "fetch"))
                and "://" not in value  # a URL is no folder
            ):
                value = directory_glob(value)
            values.append(value)
        if quantifier == "all" and (
            len(values) < 2 or any(re.search(r"[*?\[]", v) for v in values)
        ):
            # "all of the `references/` files", "both `docs/*.md`": every file there, which
            # a glob's one match does not show.
            raise _Refused("all" if len(values) < 2 else "*")
        shown = ", ".join(
            v if t is None else f"{v} [{t.role} of {t.script}]"
            for v, t in zip(values, terms, strict=True)
        )
        self.node(f"({join} {shown})" if len(values) > 1 else f"(literal {shown})")
        return _Objects(tuple(values), join, equivalent, terms)

    def located(self, predicate: Predicate, objects: _Objects) -> _Objects:
        """ "writes `STATE.md` under `loops/<loop-name>/`", "`notes.md` is created in the
        `docs/` folder": one file named by itself, placed in one named directory, is a file of
        that name in it (`loops/*/STATE.md`, or deeper). Only for reads and writes of file names (no
        directory part, no glob, no URL), and only a literal the sentence says is a directory
        (a trailing `/`, or "directory"/"folder"): "`a.md` in `b.md`" or "in the repo root"
        say no path a check can match, so the sentence refuses at the preposition. "From" is
        left out: "read `x` from `docs/`" may name where a copy came from."""
        tokens = self.tokens
        start = tokens.at
        if predicate.name not in ("consultation", "file-written"):
            return objects
        scope = tokens.take_any(SCOPES - {"from"})
        if scope is None:
            return objects
        count, tree = len(self.literals), len(self.parse.tree)
        tokens.take("the")
        named = tokens.take_any(DIRECTORY) is not None
        index = self.take_literal()
        if index is not None and not named:
            named = tokens.take_any(DIRECTORY) is not None
        if index is None:
            tokens.at = start
            del self.literals[count:]
            del self.parse.tree[tree:]
            return objects
        directory = self.literals[index]
        names_only = all(
            "/" not in v and not re.search(r"[*?\[]", v) and "://" not in v for v in objects.values
        )
        if (
            not names_only
            or not (named or directory.endswith("/"))
            or "://" in directory
            or directory.startswith(("/", "~", ".."))  # outside the workspace: no relative path
            or re.search(r"[*?\[]", directory)
            or index in self.terms
        ):
            raise _Refused(scope)
        if _PLACEHOLDER_WORD.search(directory):
            directory = self.placeholder_glob(directory, predicate)
        if len(objects.values) != 1:
            raise _Refused(scope)  # "`a.md` and `b.md` in `docs/`": one place for each?
        base = directory.removeprefix("./").rstrip("/")
        # In the directory at any depth, as "a file in `docs/`" (`docs/*`) reads already: the
        # file right there, or in a folder of it.
        values = (f"{base}/{objects.values[0]}", f"{base}/*/{objects.values[0]}")
        self.node(f"(located {scope} {base}/: {' or '.join(values)})")
        if tokens.peek() in ORDER_WORDS | ARROWS and not self.at_context():
            raise tokens.refuse()  # an order names one file: which of the two places?
        return _Objects(values, "any", objects.equivalent, objects.terms * 2)

    def placeholder_glob(self, value: str, predicate: Predicate | None) -> str:
        """ "`loops/<loop-name>/STATE.md`": a path part in angle brackets is the author's
        placeholder for a name the agent chooses, so any one name there (`loops/*/STATE.md`); a
        check of the literal `<loop-name>` would fail every run that followed the case. Only a
        file's path is a glob: in a command, a URL or a text the placeholder has no exact
        form (`delete <UUID>` matches no command that ran), so it refuses."""
        placeholders = [m.group(0) for m in _PLACEHOLDER_WORD.finditer(value)]
        if (
            (predicate is not None and predicate.name not in ("consultation", "file-written"))
            or "://" in value
            or len(placeholders) != len(_PLACEHOLDER.findall(value))
        ):
            raise _Refused(placeholders[0])
        glob = _PLACEHOLDER.sub("*", value)
        self.node(f"(placeholder {value} = {glob})")
        return glob

    def modifiers(self, kinds: frozenset[str]) -> None:
        tokens = self.tokens
        while True:
            # "the output file `report.md`": what the file is to the case, nothing more exact
            if tokens.peek() == "output" and tokens.peek(1) in FILE_KINDS & kinds:
                tokens.at += 1
                self.node("(neutral output)")
            word = tokens.take_any(NEUTRAL | kinds)
            if word is None:
                return
            self.node(f"({'kind' if word in kinds else 'neutral'} {word})")

    def literal_list(self, kinds: frozenset[str]) -> tuple[list[int], set[str]]:
        tokens = self.tokens
        indexes: list[int] = []
        joins: set[str] = set()
        while True:
            index = self.take_literal()
            if index is None:
                raise tokens.refuse()
            indexes.append(index)
            start = tokens.at
            separator = []
            while (word := tokens.peek()) in (",", "/", "or", "and", "nor", "as"):
                assert word is not None
                if word == "as":  # "`A` as well as `B`": `A` and `B`
                    if not tokens.take("as", "well", "as"):
                        break
                    word = "and"
                else:
                    tokens.at += 1
                separator.append(word)
            if not separator:
                return indexes, joins
            if "or" in separator and "and" not in separator and tokens.peek() == "any":
                last = self.any_file_in(kinds)
                if last is not None:
                    indexes.append(last)
                    joins.update(separator)
                    return indexes, joins
            named = tokens.at
            tokens.take("the")
            self.modifiers(kinds)  # "`A` or the GitHub URL `U`"
            if not self.literal_next():
                if tokens.at > named:  # "`A` or the GitHub URL": a name that fits no literal
                    raise tokens.refuse()
                tokens.at = start  # "`A`, or equivalent": the list ended before the separator
                return indexes, joins
            joins.update(separator)

    def described(self) -> Check | None:
        """ "a date-windowed chats query (`--since`)", "a test command (`pytest` or `tox`)": a
        description of a command whose parenthesis says exactly what it means. The parenthesis
        holds the commands, or the arguments of the one command the description names (a
        subcommand of the skill, its flags); a description with a state, an outcome or a rank
        ("a failing", "the last") says more than a parenthesis can restate. Denied, the
        parenthesis may give an example of what is forbidden, not all of it: no rule."""
        if self.negated or self.negated_before:
            return None
        tokens = self.tokens
        start, count, tree = tokens.at, len(self.literals), len(self.parse.tree)

        def rollback() -> None:
            tokens.at = start
            del self.literals[count:]
            del self.parse.tree[tree:]
            self.terms = {i: t for i, t in self.terms.items() if i < count}

        tokens.take_any(frozenset({"a", "an", "the"}))
        said: list[str] = []
        named: list[int] = []
        while (word := tokens.peek()) != "(":
            if word is None or word in DESCRIPTION_STOPS:
                rollback()
                return None
            index = self.take_literal()
            if index is not None:
                named.append(index)
                continue
            said.append(word)
            tokens.at += 1
        if not said or said[-1] not in DESCRIBED_HEADS or len(named) > 1:
            rollback()
            return None
        tokens.take("(")
        try:
            indexes, joins = self.literal_list(ARGUMENT_KINDS)
        except _Refused:
            rollback()
            return None
        join = _join(joins, None)
        if not tokens.take(")") or join is None:
            rollback()
            return None
        inside = [(self.literals[i], self.terms.get(i)) for i in indexes]
        checks: list[Check]
        if named and named[0] not in self.terms:
            # "a date-windowed `chats` query (--since)": the command named, with the options
            # the parenthesis gives (each on its command line, as "with" arguments are); one
            # option or another names no one line to look for.
            command_word = self.literals[named[0]]
            if join != "all" or not all(flag_shaped(v) and t is None for v, t in inside):
                rollback()
                return None
            checks = [
                command_check(command_word, False),
                *(_with_argument(command_word, value) for value, _ in inside),
            ]
            shown = f"{command_word} with"
        elif named:
            command = self.terms.get(named[0])
            # The arguments of the skill's subcommand: flags the skill shows with it.
            if (
                command is None
                or command.role != "subcommand"
                or any(t is None or command.word not in t.subcommands for _, t in inside)
            ):
                rollback()
                return None
            checks = [
                skill_command_check(
                    command.script, command.word, "subcommand", (value,), self.valued()
                )
                for value, _ in inside
            ]
            shown = f"{command.word} [subcommand of {command.script}] with"
            if self.tokens.peek() in ("rather", "instead"):
                # The description compiled: a contrast that is no complement stops it here.
                checks.append(self.rather_than(command, inside, said))
        else:
            if any(term is None and flag_shaped(value) for value, term in inside):
                rollback()  # "a fast query (--since)": an option of which command?
                return None
            checks = [
                command_check(value, False)
                if term is None
                else skill_command_check(term.script, term.word, term.role, (), self.valued())
                for value, term in inside
            ]
            shown = "commands"
        values = ", ".join(value for value, _ in inside)
        self.node(f"(described {' '.join(said)}: {shown} ({join} {values}))")
        if self.contrast_node:  # "rather than": the run, and its complement's guard
            *runs, guard = checks
            self.node(self.contrast_node)
            return AllOfCheck(operands=[combine(unique(runs), join), guard])
        return combine(unique(checks), join)

    def rather_than(
        self, command: Term, inside: list[tuple[str, Term | None]], said: list[str]
    ) -> Check:
        """ "a date-windowed chats query (--since) rather than all-time counts": the contrast is
        the same subcommand run without the flag, said as such: a complement of the notion the
        description's modifier and the skill's own sentence about the flag both name ("window":
        "all-time", "unwindowed"), then the description's head or a noun of that sentence
        ("counts", "count only within a window"). Only a windowed run passes; no windowed run
        fails; a session that also ran it unwindowed is left to judgement (the model judge):
        which run the work rested on, no rule sees. Anything else after "rather than" (another
        command, an act, a list) is no complement: refused at the word that shows it."""
        tokens = self.tokens
        contrast = tokens.peek() or ""
        if tokens.take_first(CONTRASTS) is None or len(inside) != 1 or self.vocabulary is None:
            raise _Refused(contrast)
        flag = inside[0][0]
        written = [
            sentence
            for sentence in self.vocabulary.documented.get(command.word, ())
            if f"`{flag}" in sentence or f"/{flag}" in sentence
        ]
        about = [sentence.lower() for sentence in written]
        described = {part for word in said[:-1] for part in word.split("-")}
        notions = [
            notion
            for notion in NARROWINGS
            if any(part.startswith(notion) for part in described)
            and any(notion in sentence for sentence in about)
        ]
        if len(notions) != 1:
            raise _Refused(contrast)  # the modifier does not restate what the flag does
        (notion,) = notions
        tokens.take_any(frozenset({"a", "an"}))
        complement = tokens.take_any(NARROWINGS[notion])
        if complement is None:
            raise tokens.refuse()
        tokens.take(command.word)
        noun = tokens.peek() or ""
        nouns = {said[-1], *DESCRIBED_HEADS} | {
            word.strip("`.,;:()") for sentence in about for word in sentence.split()
        }
        if not noun.isalpha() or (noun not in nouns and noun.removesuffix("s") not in nouns):
            raise tokens.refuse()
        tokens.at += 1
        self.contrast_node = (
            f"(rather than {complement} {noun}: {command.word} without {flag}, the complement"
            f' of the skill\'s "{next(s for s in written if notion in s.lower())}"; only runs with {flag}'
            f" pass, a session that also ran {command.word} without it goes to the model judge)"
        )
        guard = skill_command_without(command.script, command.word, flag, abbreviated=False)
        why = (
            f"{command.word} also ran without {flag}: which run the work rested on is a"
            ' judgement ("rather than")'
        )
        return NotCheck(operand=guard, if_seen="undecided", note=why)

    def any_file_in(self, kinds: frozenset[str]) -> int | None:
        """The last item of a list of files, "... or any `refs/*` file", "... or any file in
        `refs/`": a file of that folder or glob, as "any file in `refs/`" alone reads (one
        more alternative of the list). Only for files (a text or a command has no folder),
        only a folder or a glob (`or any `a.md``: any of what?), and only last."""
        tokens = self.tokens
        if kinds != FILE_KINDS:
            return None
        tokens.take("any")
        self.modifiers(kinds)
        named = False
        if tokens.take_any(SCOPES - {"from"}):
            tokens.take("the")
            named = tokens.take_any(DIRECTORY) is not None
        index = self.take_literal()
        if index is None:
            raise tokens.refuse()
        named = tokens.take_any(DIRECTORY) is not None or named
        literal = self.literals[index]
        if named and "*" not in literal:
            literal = self.literals[index] = literal.rstrip("/") + "/"
        if not (literal.endswith("/") or "*" in literal) or index in self.terms:
            raise _Refused("any")
        if tokens.peek() in (",", "/", "or", "and", "nor"):
            raise tokens.refuse()  # "or any `refs/*` file, or `b.md`": the last item only
        self.node(f"(or any file of {self.literals[index]})")
        return index

    def literal_next(self) -> bool:
        start, count = self.tokens.at, len(self.literals)
        found = self.take_literal() is not None
        self.tokens.at = start
        del self.literals[count:]
        self.terms = {i: t for i, t in self.terms.items() if i < count}
        return found

    def take_literal(self) -> int | None:
        """The index of the literal next: a backticked one, or a bare word the skill documents
        as one of its commands ("ran stats", "used --participant"); not one after an article
        ("ran a search": a common noun) unless a name of a command follows ("the stats
        subcommand")."""
        tokens = self.tokens
        word = tokens.peek() or ""
        slot = _SLOT.fullmatch(word)
        if slot is not None:
            # A slot mark the sentence itself wrote (not one of its literals) is no literal.
            if int(slot.group(1)) >= self.given:
                return None
            tokens.at += 1
            return int(slot.group(1))
        term = self.vocabulary.term(word) if self.vocabulary is not None else None
        if term is None:
            return None
        before = tokens.items[tokens.at - 1] if tokens.at > 0 else ""
        if before in ARTICLES and tokens.peek(1) not in COMMAND_NAMES:
            return None
        tokens.at += 1
        self.literals.append(word)
        self.terms[len(self.literals) - 1] = term
        return len(self.literals) - 1

    def or_equivalent(self) -> bool:
        tokens = self.tokens
        start = tokens.at
        parenthesis = tokens.take("(")
        tokens.take(",")
        # "or similar" is left to refuse: a similar command (another script that does the job)
        # is a judgement, where an equivalent one is the same command run another way.
        if tokens.take("or") and (tokens.take("equivalent") or tokens.take("an", "equivalent")):
            tokens.take_any(frozenset({"command", "commands"}))
            if not parenthesis or tokens.take(")"):
                self.node("(or equivalent)")
                return True
        tokens.at = start
        return False

    def ordered(self, predicate: Predicate, objects: _Objects) -> Check:
        """The claim itself, or an order between reads ("before", "after", "first")."""
        tokens = self.tokens
        if predicate.name == "consultation" and not self.at_context():
            if (
                self.first
                or tokens.take("first")
                or tokens.take("before", "anything", "else")
                or self.before_any_other()
            ):
                sequence = self.then_read(objects)  # "reads `A` first, then `B`"
                if sequence is not None:
                    return sequence
                self.node("(order first)")
                self.parse.predicate = "read-first"
                # Two files cannot each come before every other file: one exact file only.
                return ReadBeforeCheck(
                    kind="read_before", first=_single(objects, "first"), then="*"
                )
            sequence = self.then_read(objects)
            if sequence is not None:
                return sequence
            if tokens.take_any(frozenset({"before", "prior to"})):
                self.denied_order("before")
                tokens.take_any(frozenset({"reading", "opening", "consulting", "loading"}))
                then = self.objects(predicate)
                if tokens.take("other", "than", "itself"):
                    # read_before never counts a file matching both patterns as a later read.
                    self.node("(other-than itself)")
                self.node("(order before)")
                self.parse.predicate = "read-before"
                return self.read_before(objects, _single(then, "before"))
            # "only after `B`": `A`'s first read came after `B`, which "after" already means here.
            if tokens.take("after") or tokens.take("only", "after"):
                self.denied_order("after")
                tokens.take_any(frozenset({"reading", "opening", "consulting", "loading"}))
                first = _single(self.objects(predicate), "after")
                self.node("(order after)")
                self.parse.predicate = "read-before"
                # "reads `A` after `B`" says `A` was read: read_before alone holds without it.
                later = [
                    AllOfCheck(
                        operands=[
                            ReadBeforeCheck(kind="read_before", first=first, then=v),
                            FileReadCheck(kind="file_read", path=v),
                        ]
                    )
                    for v in objects.values
                ]
                return combine(list(later), objects.join)
        if predicate is FETCH and not self.at_context():
            if tokens.take_any(frozenset({"before", "prior to"})):
                return self.fetch_before(objects)
            if tokens.peek() == "after":
                raise tokens.refuse()  # after a read: the first fetch, or every one?
        if predicate is COMMAND and not self.at_context():
            sequence = self.then_ran(objects)
            if sequence is not None:
                return sequence
            start = tokens.at
            if tokens.take_any(frozenset({"before", "prior to"})):
                if tokens.peek() in ANSWERING or tokens.peek() in ("the", "its", "a"):
                    tokens.at = start  # "before answering", "before the answer": the context
                else:
                    return self.ran_before(objects)
        return self.claim(predicate, objects)

    def ran_before(self, objects: _Objects) -> Check:
        """ "runs `A` before `B`", "calls `A` before calling `B`": `A` ran, and `B` (if it ran)
        started only after that run ended (`checks/ran_before.py`). One command each side, as
        written: a skill's bare command word, a script (run in any way) or "or equivalent" has
        no pattern that orders exactly, so it refuses."""
        tokens = self.tokens
        self.denied_order("before")
        if self.verb.split(" ")[0] in CALLS:
            # "calls `find_customer` before `create_invoice`": tools called by name (a model
            # context server's), which `ran_before` would look for among shell commands only.
            raise _Refused("before")
        tokens.take_any(words("running invoking executing using"))
        then = self.objects(COMMAND)
        first_pattern = self.order_pattern(objects)
        then_pattern = self.order_pattern(then)
        self.node("(order before)")
        self.parse.predicate = "ran-before"
        # `ran_before` fails when `A` never ran: it holds the claim that `A` ran too.
        return RanBeforeCheck(kind="ran_before", first=first_pattern, then=then_pattern)

    def then_ran(self, objects: _Objects) -> Check | None:
        """ "runs `make lint`, then `make test`", "... and then ...", "... followed by ...":
        both ran, the second started after the first ended (`ran_before`, which leaves the
        order unbroken when the second never ran, so its run is claimed too). One step, as
        `ran_before` takes it: a chain, a denial, a tool called by name refuse."""
        tokens = self.tokens
        start = tokens.at
        tokens.take(",")
        tokens.take("and")
        if not (tokens.take("then") or tokens.take("followed", "by")):
            tokens.at = start
            return None
        word = tokens.items[tokens.at - 1]
        self.denied_order(word)
        if self.verb.split(" ")[0] in CALLS:
            raise _Refused(word)  # tools called by name: no shell commands to order
        tokens.take_any(COMMAND.verbs)  # "then runs `B`"
        then = self.objects(COMMAND)
        first_pattern = self.order_pattern(objects, word)
        then_pattern = self.order_pattern(then, word)
        if tokens.peek() in (",", "and", "then", "followed"):
            raise tokens.refuse()  # a chain of runs: each pair, or the whole?
        self.node("(order then)")
        self.parse.predicate = "ran-before"
        return AllOfCheck(
            operands=[
                RanBeforeCheck(kind="ran_before", first=first_pattern, then=then_pattern),
                CommandRanCheck(kind="command_ran", pattern=then_pattern),
            ]
        )

    def fetch_before(self, objects: _Objects) -> Check:
        """ "fetched `U` before reading `P`", "a fetch to `H` before any file under `P` was
        consulted": the first such fetch came before the first read of `P` (`before_read`).
        One path or glob: the first read of one of several has no one pattern."""
        tokens = self.tokens
        self.parse.predicate = "fetch-before"  # an order seen: a suggestion must keep it
        self.denied_order("before")
        self.node("(order before)")
        gerund = tokens.take_any(frozenset({"reading", "opening", "consulting", "loading"}))
        then = self.objects(CONSULTATION)
        # "before `P` was consulted": the read as a passive, its verb said
        if gerund is None and not (
            tokens.take_any(BE) and tokens.take_any(CONSULTATION.participles)
        ):
            raise tokens.refuse()
        target = _single(then, "before")
        checks: list[Check] = [
            check.model_copy(update={"before_read": target}) for check in self.fetch_checks(objects)
        ]
        return combine(checks, objects.join)

    def fetch_checks(self, objects: _Objects) -> list[UrlFetchedCheck]:
        """A URL or a host each literal names; any other literal (a file, a URL without its
        scheme) refuses: what would be fetched?"""
        checks = []
        for value in objects.values:
            check = fetch_target(value)
            if check is None:
                raise _Refused(value)
            checks.append(check)
        return checks

    def attempted(self) -> None:
        """ "(no) fetch to `H` was attempted (made)": a fetch counts when it was tried."""
        tokens = self.tokens
        start = tokens.at
        tokens.take_any(BE)
        word = tokens.take_any(ATTEMPTED)
        if word is None:
            tokens.at = start
            return
        self.node(f"({word}: a fetch tried counts)")

    def order_pattern(self, objects: _Objects, word: str = "before") -> str:
        value = _single(objects, word)
        if objects.equivalent or any(objects.terms):
            raise _Refused(word)
        check = command_check(value, False)
        if not isinstance(check, CommandRanCheck):
            raise _Refused(word)  # a script: run as `./x`, `python x`, ... no one pattern
        return check.pattern

    def before_any_other(self) -> bool:
        """ "before any other file (reference, document)": first of all its reads."""
        tokens = self.tokens
        start = tokens.at
        if tokens.take("before", "any", "other") and tokens.take_any(FILE_KINDS):
            return True
        tokens.at = start
        return False

    def denied_order(self, word: str) -> None:
        """ "did not read `B` before `A`": not in that order, or not at all? A session that read
        neither holds the sentence and fails the denied `read_before`; it refuses."""
        if self.negated or self.negated_before:
            raise _Refused(word)

    def then_read(self, first: _Objects, files_only: bool = False) -> Check | None:
        """ "`A`, then `B`" / "`A` and then `B`" / "`A` → `B`": both read, `A` before `B`; a
        chain ("`A`, then `B`, then `C`", "`A` → `B` → `C`") orders each pair of neighbours
        and needs every later file read (the first is read before the second, so it is too)."""
        tokens = self.tokens
        files = [first]
        words: list[str] = []
        while True:
            start = tokens.at
            tokens.take(",")
            tokens.take("and")
            step = tokens.take_any(ARROWS | frozenset({"then"}))
            if step is None and tokens.take("followed", "by"):
                step = "then"  # "`A` followed by `B`": `A`, then `B`
            if step is None or (step in ARROWS and tokens.at - start > 1):
                tokens.at = start  # ", → `B`" is no arrow of a chain
                break
            words.append("then" if step == "then" else "arrow")
            tokens.take_any(CONSULTATION.verbs)
            files.append(self.objects(CONSULTATION))
        if len(files) == 1:
            return None
        if (self.negated or self.negated_before) and (len(files) > 2 or "arrow" in words):
            # "never reads `A` → `B` → `C`": none of them, not in that order, or not all?
            raise _Refused("then" if "arrow" not in words else "\u2192")
        if files_only and not all(_file_like(v) for f in files for v in f.values):
            raise _Refused("\u2192")  # "shows `A` → `make test`": no read of a command
        names = [
            _single(f, "then" if w == "then" else "\u2192")
            for f, w in zip(files, ["then", *words], strict=True)
        ]
        self.node(f"(order {' then '.join(names)})" if len(names) > 2 else "(order then)")
        self.parse.predicate = "read-before"
        operands: list[Check] = []
        for earlier, later in pairwise(names):
            operands.append(ReadBeforeCheck(kind="read_before", first=earlier, then=later))
            operands.append(FileReadCheck(kind="file_read", path=later))
        return AllOfCheck(operands=operands)

    def with_arguments(self) -> list[str]:
        """ "ran `x.py` with `--dry-run`": arguments the same command line must hold."""
        tokens = self.tokens
        if not tokens.take("with"):
            return []
        tokens.take_any(frozenset({"the", "a", "an"}))
        while tokens.take_any(ARGUMENT_KINDS):
            pass
        indexes, joins = self.literal_list(ARGUMENT_KINDS)
        while tokens.take_any(ARGUMENT_KINDS):
            pass
        if joins - {",", "and"}:
            raise _Refused("or")  # one argument or another: no one line to look for
        arguments = [self.literals[i] for i in indexes]
        self.node(f"(with {', '.join(arguments)})")
        return arguments

    def at_context(self) -> bool:
        """Whether what follows is a `context` suffix (and no order between reads)."""
        start, tree = self.tokens.at, list(self.parse.tree)
        self.context()
        found = self.tokens.at > start
        self.tokens.at, self.parse.tree = start, tree
        return found

    def any_url(self) -> Check | None:
        """ "includes a (local) URL": any URL, or only a localhost/loopback one."""
        tokens = self.tokens
        start = tokens.at
        tokens.take_any(frozenset({"a", "an", "the"}))
        local = tokens.take_any(frozenset({"local", "localhost", "loopback"}))
        if tokens.take_any(frozenset({"url", "link", "address"})) and tokens.peek() is None:
            self.parse.predicate = "answer-local-url" if local else "answer-url"
            self.node(f"(url {'local' if local else 'any'})")
            return FinalAnswerUrlCheck(kind="final_answer_url", local_only=local is not None)
        tokens.at = start
        return None

    def link_to(self) -> None:
        """ "includes a link to `URL`": the answer holds the URL (a link's target is its text)."""
        tokens = self.tokens
        start = tokens.at
        tokens.take_any(frozenset({"a", "an", "the"}))
        link = tokens.take_any(frozenset({"link", "links", "hyperlink"}))
        if link and tokens.take("to") and self.literal_next():
            self.node("(link to)")
            return
        tokens.at = start

    def read_before(self, first: _Objects, then: str) -> Check:
        """`A` (and/or `B`) before `C`: each file of the list, joined as the list says."""
        checks: list[Check] = [
            ReadBeforeCheck(kind="read_before", first=v, then=then) for v in first.values
        ]
        return combine(checks, first.join)

    def not_just(self, predicate: Predicate, objects: _Objects) -> None:
        """ "read `A` and `B`, not just `A`": the act went beyond what "just" names, which the
        claim already says when it needs every one of its literals, among them every one "just"
        names (which it may presuppose) and one more. After "`A` or `B`" (only `A` may have been
        read), "ran `A`, not only `B`" (was `B` run too?), or a denial, it refuses."""
        tokens = self.tokens
        start = tokens.at
        tokens.take(",")
        tokens.take("and")
        lead = tokens.take_first((("not", "just"), ("not", "only"), ("not", "merely")))
        if lead is None:
            tokens.at = start
            return
        if self.negated or self.negated_before:
            raise _Refused("not")
        named = self.objects(predicate)
        beyond = set(objects.values) - set(named.values)
        named_too = set(named.values) <= set(objects.values)
        if (objects.join != "all" and len(objects.values) > 1) or not beyond or not named_too:
            raise _Refused(lead[1])
        self.node(f"(not just {', '.join(named.values)}: the claim says more)")

    def claim(self, predicate: Predicate, objects: _Objects) -> Check:
        self.not_just(predicate, objects)
        if objects.equivalent and not equivalent_is_exact(predicate.name, objects.values):
            raise _Refused("equivalent")
        checks: list[Check]
        if predicate.name == "consultation":
            checks = [FileReadCheck(kind="file_read", path=v) for v in objects.values]
        elif predicate.name == "command":
            terms = objects.terms or (None,) * len(objects.values)
            self.not_a_tool_call(objects.values, terms)
            arguments = self.with_arguments()
            if arguments and (len(objects.values) != 1 or objects.equivalent):
                raise _Refused("with")  # which of the commands had them?
            if any(terms):
                checks = [
                    command_check(v, objects.equivalent)
                    if t is None
                    else skill_command_check(
                        t.script, t.word, t.role, tuple(arguments), self.valued()
                    )
                    for v, t in zip(objects.values, terms, strict=True)
                ]
                return combine(unique(checks), objects.join)
            checks = unique([command_check(v, objects.equivalent) for v in objects.values])
            if arguments:
                command = objects.values[0]
                return combine([*checks, *(_with_argument(command, a) for a in arguments)], "all")
        elif predicate.name == "file-written":
            checks = [FileWrittenCheck(kind="file_written", path=v) for v in objects.values]
        elif predicate is AGENT_SAID:
            affirmed = self.verb in CLAIMED
            checks = [
                AgentSaidCheck(kind="agent_said", text=v, affirmed=affirmed) for v in objects.values
            ]
        elif predicate is FETCH:
            return combine(list(self.fetch_checks(objects)), objects.join)
        else:
            affirmed = self.verb in CLAIMED
            checks = [
                FinalAnswerContainsCheck(kind="final_answer_contains", text=v, affirmed=affirmed)
                for v in objects.values
            ]
        return combine(checks, "any" if objects.equivalent else objects.join)

    def not_a_tool_call(self, values: tuple[str, ...], terms: tuple[Term | None, ...]) -> None:
        """ "calls `find_customer`", "invokes `search`": a bare name no known program bears may
        be a tool (a model context server's) or a function called by name, which `command_ran`
        would look for among shell commands only; it refuses. "runs" and "executes" say a
        command; so does a name the skill documents as its command, or "a command invoking"."""
        verb = self.verb.split(" ")
        called = next((w for w in verb if w in CALLED_BY_NAME), None)
        if called is None or {"command", "commands"} & set(verb):
            return
        for value, term in zip(values, terms, strict=True):
            if term is None and tool_name(value):
                raise _Refused(called)


def _file_like(literal: str) -> bool:
    """A file or folder, not a command or a text: `SKILL.md`, `bin/setup`, `references/`."""
    return path_shaped(literal) or (
        "/" in literal.strip("/") and not any(c.isspace() for c in literal)
    )


def _with_argument(command: str, argument: str) -> Check:
    """One command line holding the command and, after it, the argument as a whole word."""
    # Not past `;`, `|`, `&` or a newline: the argument of another statement is not its own.
    # Each word of the argument may be quoted (`-k 'smoke'` is `-k smoke` to the program).
    # The argument ends the word: `--dry-run=false` is another argument than `--dry-run`.
    words = r"\s+".join(rf"['\"]?{re.escape(word)}['\"]?" for word in argument.split())
    pattern = rf"(?:^|[^\w-]){re.escape(command)}\s(?:[^;|&\n]*\s)?{words}(?:$|[\s;|&)])"
    return CommandRanCheck(kind="command_ran", pattern=pattern)


def _single(objects: _Objects, word: str) -> str:
    """One exact file where a list has no single meaning (the file every other read follows)."""
    if len(objects.values) != 1:
        raise _Refused(word)
    return objects.values[0]


def _join(joins: set[str], quantifier: str | None, equivalent: bool = False) -> str | None:
    """What a list means: "or" (or "/") any, "and" all; a quantifier that says "one is
    enough" makes "and" any too ("at least one of `A` and `B`"). Mixed lists mean nothing
    exact, nor does "or equivalent" after a list that needs all of it."""
    words = joins - {","}
    if not words:  # one literal, or a list by commas alone
        join = "any" if quantifier in ("any", "either") else "all"
    elif words <= {"or", "/"}:
        join = "any" if quantifier != "all" else ""
    elif words == {"and"} and quantifier != "either":
        join = "any" if quantifier == "any" else "all"
    else:
        join = ""
    if equivalent and join == "all" and words:
        return None
    return join or None
