"""Pydantic models of the eval-repo files: target, suite, case, rubric, evaluation, repo config.

They cover the public agentic-evals shape exactly; every field we add is optional so upstream
files validate unchanged. Keys outside that shape are kept (`extra="allow"`) so that loading can
report every one of them with its location (`unknown_fields`): an error, or a warning under
`--lenient`. Our own structured vocabulary (checks, setup items) forbids them outright.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Annotated, Any, Literal

from packaging.requirements import InvalidRequirement, Requirement
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)

from evaluator.defaults import MAX_TIMEOUT_S
from evaluator.safepath import ID_PATTERN
from evaluator.vocabulary import ALL_STATUSES, BlockedReason, Split, Status

__all__ = ["ALL_STATUSES", "BlockedReason", "Status"]
NonEmpty = Annotated[str, Field(min_length=1)]
# Ids name directories and files of a run: one strict pattern (see evaluator/safepath.py).
Id = Annotated[str, Field(min_length=1, pattern=ID_PATTERN)]


class OpenModel(BaseModel):
    """Upstream files carry free-form extras; keep them instead of failing."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


class ClosedModel(BaseModel):
    """Our own structured vocabulary: a typo here is an error, not a silently ignored key."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


# --------------------------------------------------------------------------- repo config (ours)


class SplitSettings(ClosedModel):
    """How cases without an explicit `split:` are assigned: a stable hash of
    `<target>/<suite>/<case>` with this seed, so adding a case never moves another one."""

    seed: int = 0
    val_fraction: float = Field(default=0.34, ge=0, le=1)
    test_fraction: float = Field(default=0.0, ge=0, le=1)

    @model_validator(mode="after")
    def _leaves_train(self) -> SplitSettings:
        if self.val_fraction + self.test_fraction >= 1:
            raise ValueError("val_fraction + test_fraction must leave room for train (< 1)")
        return self


class RepoConfig(ClosedModel):
    """`agentic-evals/agentic-eval.yaml`: settings for the whole eval repo (optional file)."""

    default_target: str | None = None
    splits: SplitSettings = Field(default_factory=SplitSettings)
    behaviors: str | None = Field(
        default=None, description="Scripted-behaviour directory, relative to this file."
    )


# --------------------------------------------------------------------------- target.yaml


class ArtifactContract(OpenModel):
    required: list[str] = Field(default_factory=list)


class TargetDefaults(ClosedModel):
    """Our run defaults for a target; command-line flags override them."""

    attempts: int | None = Field(default=None, ge=1, le=100)
    timeout_s: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_S, allow_inf_nan=False)
    agent: str | None = None
    model: str | None = None


# --------------------------------------------------------------------------- needs (ours)

PROGRAM_NAME = r"^[A-Za-z0-9_][A-Za-z0-9._+-]*$"


class Needs(ClosedModel):
    """What the machine must offer the agent for a case to be tried at all: programs on the
    agent's `PATH` and Python distributions its `python3` imports. Looked up in the attempt's
    own jail before the agent starts; a missing one makes the attempt `blocked (environment)`
    without an agent run. A target's, a suite's and a case's needs add up."""

    programs: list[Annotated[str, Field(pattern=PROGRAM_NAME)]] = Field(
        default_factory=list,
        description="Programs the agent's shell must find on its PATH (`soffice`, `dot`): bare"
        " names, looked up as `command -v` does, never run.",
    )
    python: list[NonEmpty] = Field(
        default_factory=list,
        description="Distributions the first `python3` on the agent's PATH must have installed,"
        " each a name with an optional version specifier (`mcp>=1.2`, `openpyxl`); `python`"
        " names that interpreter's own version (`python>=3.11`).",
    )

    @field_validator("python")
    @classmethod
    def _requirements(cls, value: list[str]) -> list[str]:
        for text in value:
            python_requirement(text)  # raises ValueError with the reason
        return value

    def merged(self, *others: Needs | None) -> Needs:
        """These needs and `others`', each name once, in the order first stated."""
        programs, python = list(self.programs), list(self.python)
        for other in others:
            if other is not None:
                programs += other.programs
                python += other.python
        return Needs(programs=list(dict.fromkeys(programs)), python=list(dict.fromkeys(python)))

    def stated(self) -> list[str]:
        """Every need as a person would say it (`program soffice`, `python mcp>=1.2`)."""
        return [f"program {p}" for p in self.programs] + [f"python {r}" for r in self.python]


def python_requirement(text: str) -> Requirement:
    """A `needs.python` entry as a requirement: a distribution name and an optional version
    specifier only (an extra, a marker or a URL cannot be checked by looking a version up)."""
    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        raise ValueError(f"{text!r} is not a requirement such as 'mcp>=1.2': {exc}") from None
    if requirement.extras or requirement.marker is not None or requirement.url is not None:
        raise ValueError(
            f"{text!r}: only a distribution name and a version specifier can be checked"
            " (no extras, markers or URLs)"
        )
    return requirement


class Target(OpenModel):
    target_id: Id
    entry_skill: NonEmpty = Field(description="SKILL.md path, relative to the source workspace.")
    roots: list[NonEmpty] = Field(default_factory=list)
    default_suites: list[NonEmpty] = Field(default_factory=list)
    suite_root: NonEmpty = "cases"
    artifact_contract: ArtifactContract | None = None
    allowed_statuses: list[Status] = Field(default_factory=lambda: list(ALL_STATUSES))
    focus_areas: list[str] = Field(default_factory=list)
    # ours
    title: str | None = None
    description: str | None = None
    defaults: TargetDefaults | None = None
    docs_index: str | None = Field(
        default=None,
        description="Source-workspace path of the docs index that `docs_index_present` toggles.",
    )
    fixtures_root: str | None = Field(
        default=None, description="Directory of case fixtures, relative to the target directory."
    )
    trigger_suite: NonEmpty | None = Field(
        default=None,
        description="Trigger cases (our trigger-suite YAML, or a skill-creator, should/should-not"
        " or CSV trigger set), relative to the target directory.",
    )
    distractor_skills: list[NonEmpty] = Field(
        default_factory=list,
        description="Other skills (their folder or SKILL.md, relative to the source workspace)"
        " installed beside the target's in trigger attempts, so that they compete for prompts.",
    )
    companion_skills: list[NonEmpty] = Field(
        default_factory=list,
        description="Other skills the target's skill runs or reads (their folder or SKILL.md,"
        " relative to the source workspace: a plugin's sibling skills): each copied whole into"
        " every attempt's workspace at its source-workspace path and installed beside the"
        " target's where the agent discovers skills and at its user-level skills folder, as a"
        " user who installed the plugin has them. Never the skill under test, never scored;"
        " left out with the skill (a no-skill variant gets neither).",
    )
    needs: Needs | None = Field(
        default=None, description="What every case of the target needs (see `Case.needs`)."
    )

    def companion_folders(self) -> list[str]:
        """Each companion skill's folder (source-workspace relative), from its folder or its
        SKILL.md path."""
        paths = [PurePosixPath(c) for c in self.companion_skills]
        return [str(p.parent if p.name == "SKILL.md" else p) for p in paths]

    def copied_paths(self) -> list[str]:
        """Every source-workspace path an attempt's workspace holds a copy of: the entry skill,
        the roots and the companion skills' folders."""
        return [self.entry_skill, *self.roots, *self.companion_folders()]


# --------------------------------------------------------------------------- suite.yaml


class Suite(OpenModel):
    suite_id: Id
    title: str | None = None
    description: str | None = None
    cases: list[NonEmpty] = Field(description="Case file paths, relative to the eval repo root.")
    # ours
    needs: Needs | None = Field(
        default=None, description="What every case of the suite needs (see `Case.needs`)."
    )


# --------------------------------------------------------------------------- structured checks


class _Check(ClosedModel):
    note: str | None = Field(default=None, description="Why this check stands for the criterion.")


class FileReadCheck(_Check):
    kind: Literal["file_read"]
    path: NonEmpty = Field(description="Workspace-relative path or glob the agent must have read.")
    min_share: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="Share of the file's lines (of the `section`'s, when given) whose content"
        " must have reached the agent: 1 is the whole file. Without it, any part of the file"
        ' that reached the agent counts (docs/evidence-access.md, "Content shown").',
    )
    section: NonEmpty | None = Field(
        default=None,
        description="A Markdown heading (`## Routing`, or `Routing` at any level): only that"
        " section counts, from the heading to the next heading of the same or a higher level.",
    )


class ReadBeforeCheck(_Check):
    kind: Literal["read_before"]
    first: NonEmpty = Field(description="Path or glob that must be read first.")
    then: NonEmpty = Field(description="Path or glob whose first access must come later.")


class CommandRanCheck(_Check):
    kind: Literal["command_ran"]
    pattern: NonEmpty = Field(
        description="Regular expression searched in each command the agent ran; the match must"
        " cover a program that ran (the command or a script it was given), so printing, searching"
        " or reading it is not running it, and a command after `||` or in a branch alone blocks."
    )
    exit_code: int | None = None


class RanBeforeCheck(_Check):
    """A command matching `first` ran, and no command matching `then` was started before that
    run had ended (its tool call's result is in the session first)."""

    kind: Literal["ran_before"]
    first: NonEmpty = Field(
        description="Regular expression (RE2) of the command that must run first, matched as"
        " `command_ran` matches: the match covers a program that ran."
    )
    then: NonEmpty = Field(
        description="Regular expression (RE2) of the command that may only start after it;"
        " if no such command ran, the order holds."
    )


class UrlFetchedCheck(_Check):
    """The agent fetched (or tried to fetch) a URL, or any URL of a host: by a command the shell
    analysis models as fetching (`curl`, `wget`, git's remote subcommands, a package manager
    given a URL) or by its own web tool (Claude Code's `WebFetch`, Gemini CLI's `web_fetch`). A
    fetch that could have happened unseen (a script, `python -c`, a computed URL, URLs read
    from a file) leaves its absence `blocked`, never a fail."""

    kind: Literal["url_fetched"]
    url: NonEmpty | None = Field(
        default=None,
        description="The URL fetched, compared whole once both are normal (scheme and host in"
        " lower case, default port and fragment dropped, the host as the network reaches it:"
        " a trailing dot and escapes undone, an international name in ASCII, any IPv4 spelling"
        " dotted, `localhost` for a loopback address); without a scheme it is `http://`.",
    )
    host: NonEmpty | None = Field(
        default=None,
        description="Any URL of this host (exactly, however a URL spells it);"
        " `*.example.com` is any host below `example.com`, not `example.com` itself.",
    )
    before_read: NonEmpty | None = Field(
        default=None,
        description="Workspace-relative path or glob: the first such fetch came before the first"
        " read of a file matching it (as `read_before` finds reads), or no such file was read.",
    )

    @model_validator(mode="after")
    def _one_target(self) -> UrlFetchedCheck:
        if (self.url is None) == (self.host is None):
            raise ValueError("url_fetched needs exactly one of `url` and `host`")
        return self


class ScriptRanCheck(_Check):
    kind: Literal["script_ran"]
    path: NonEmpty = Field(
        description="Workspace-relative path or glob of a script the agent executed (run by an"
        " interpreter, as `./x`, sourced or via `python -m`); printing or reading it is not running it."
    )
    command: NonEmpty | None = Field(
        default=None,
        description="A regular expression (RE2) searched in the simple command that ran the"
        " script (its words as bash passes them), covering the script: its subcommand or arguments"
        " (`tool\\.py\\s+stats`); another command on the same line that only names them is no"
        " run with them. Without it, any run of the script counts.",
    )
    without: NonEmpty | None = Field(
        default=None,
        description="A regular expression (RE2) the same simple command must not match: a run"
        " whose words match it is no run of this check (`--chat-id` left out: a search of every"
        " chat, as the skill documents). Needs `command`.",
    )
    exit_code: int | None = None

    @model_validator(mode="after")
    def _without_needs_command(self) -> ScriptRanCheck:
        if self.without is not None and self.command is None:
            raise ValueError("`without` needs `command`: the run it rules out is of that command")
        return self


class FileWrittenCheck(_Check):
    kind: Literal["file_written"]
    path: NonEmpty


def _affirmed_field() -> Any:
    """`affirmed` of the two text checks a claim verb compiles to (`final_answer_contains`,
    `agent_said`)."""
    return Field(
        default=False,
        description="Set by prose claiming a statement (`says`, `reports`, `states`): where the"
        ' text stands only in clauses that deny, doubt or ask about it ("I could not confirm'
        ' `X`"), the check leaves the entry to judgement (docs/criteria.md, "Said or'
        ' denied").',
    )


class FinalAnswerContainsCheck(_Check):
    kind: Literal["final_answer_contains"]
    text: NonEmpty
    case_sensitive: bool = False
    affirmed: bool = _affirmed_field()


class AgentSaidCheck(_Check):
    """Some message the agent wrote to the user during the session (any of them, not only the
    final answer) contains a text; `not` of it: no message does."""

    kind: Literal["agent_said"]
    text: NonEmpty
    case_sensitive: bool = False
    affirmed: bool = _affirmed_field()


class FinalAnswerMatchesCheck(_Check):
    kind: Literal["final_answer_matches"]
    pattern: NonEmpty


class FinalAnswerUrlCheck(_Check):
    kind: Literal["final_answer_url"]
    local_only: bool = Field(default=False, description="Only localhost/loopback URLs count.")


class WorkspaceFileExistsCheck(_Check):
    kind: Literal["workspace_file_exists"]
    path: NonEmpty


class WorkspaceFileContainsCheck(_Check):
    kind: Literal["workspace_file_contains"]
    path: NonEmpty
    text: NonEmpty


class WorkspaceFileMatchesCheck(_Check):
    """A workspace file (or one matching a glob) whose content matches a regular expression,
    in RE2 syntax (linear time; no backreferences or lookaround)."""

    kind: Literal["workspace_file_matches"]
    path: NonEmpty
    pattern: NonEmpty
    exclude: list[NonEmpty] = Field(
        default_factory=list,
        description="Workspace paths (files or folders) not searched: the case's own input"
        " files, which the agent was given rather than wrote, while each is as it was given"
        " (a file there the agent changed or added is its own and is searched).",
    )


class WorkspaceEnvValueCheck(_Check):
    """A workspace file, as the session left it, holds the value of an environment variable the
    case declares: a credential hard-coded rather than read from the environment."""

    kind: Literal["workspace_env_value"]
    variable: NonEmpty = Field(
        description="A variable the case declares (`setup.env_vars_required` or `setup.env`);"
        " its value is what is searched for, never written into a verdict."
    )
    path: NonEmpty = Field(
        default="**/*",
        description="Workspace-relative glob of the files searched; every file by default.",
    )


class CommandCheck(_Check):
    """A shell command run after the agent finished, in the attempt's workspace (inside the jail
    when there is one): skill-creator's typed `command` assertion. `{{output_dir}}` in the
    command names the attempt workspace."""

    kind: Literal["command"]
    command: NonEmpty = Field(
        description="Run with `/bin/sh -c` (as skill-creator runs it: no bash-only syntax);"
        " `{{output_dir}}` is the workspace. Its environment: `PATH` (the evaluator's absolute"
        " entries only: name a program of the workspace by its path, `./node_modules/.bin/x`),"
        " a new empty `HOME`, `LANG`, Python's compiled modules kept under that home"
        " (`PYTHONPYCACHEPREFIX`, never a `__pycache__` of the workspace), Maven's and"
        " Gradle's homes there too."
    )
    expect_exit_code: int = Field(
        default=0,
        description="The exit code that passes the check. Another one fails it, unless the"
        " output shows that this machine stopped the command (a program missing from PATH;"
        " a package installer or build tool (pip, npm, Maven, Gradle, cargo, go) that could"
        " not fetch what it needs, with a sign of no network in its output; pip refusing a"
        " system-wide install or unable to write where it installs (read-only in the jail);"
        " docs/coming-from-skill-creator.md): then the check is"
        " `blocked: environment`, since any agent would get that exit code here, provided"
        " the check's access trace shows that no code the session wrote ran (docs/security.md,"
        ' "A machine stop must be proven"); untraced, the exit code decides.',
    )
    timeout_s: float = Field(
        default=60.0,
        gt=0,
        le=600,
        description="Killed after this long: a command still running then fails the check"
        " (what it ran is the agent's work).",
    )


class AgentSpawnedCheck(_Check):
    """A sub-agent was spawned (`spawn_agent`) as described: what an evaluator agent's own
    conduct is judged on."""

    kind: Literal["agent_spawned"]
    fork_context: bool | None = Field(
        default=None, description="The spawn's `fork_context` must be this value."
    )
    message_contains: str | None = Field(
        default=None, description="Text the spawn's message must contain, verbatim."
    )


class SkillInvokedCheck(_Check):
    """The target skill fired in the session, by the agent's own trigger signal (the one
    `agentic-eval triggers` reads: Claude Code's `Skill` tool naming it, Gemini CLI's
    `activate_skill` naming it, and for every agent its `SKILL.md` body reaching the agent through
    a tool output, Codex's only signal): "The
    `loop-builder` skill is invoked"."""

    kind: Literal["skill_invoked"]
    skill: NonEmpty = Field(
        description="The target skill's name, as its SKILL.md declares it (only the target"
        " skill's firing is read: another name is blocked)."
    )


class SpawnedAgentsNamedCheck(_Check):
    """The final answer names every spawned sub-agent by the nickname its spawn returned."""

    kind: Literal["spawned_agents_named"]


class NotCheck(ClosedModel):
    """Holds when its operand does not: "does not show consultation of ..."."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)

    operand: Check = Field(alias="not")
    if_seen: Literal["undecided"] | None = Field(
        default=None,
        description="`undecided`: the operand holding fails nothing but leaves the check to"
        " judgement, blocked (`unclear-rule`); an entry compiled from prose then goes to the"
        ' model judge ("rather than X" beside a session that did both); under an entry\'s own'
        " `checks:` the entry stays blocked. Absent: the operand holding fails the check.",
    )
    note: str | None = None

    @property
    def kind(self) -> Literal["not"]:
        return "not"


class AnyOfCheck(ClosedModel):
    """Holds when at least one operand does: "`A` or `B`", "or equivalent"."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)

    operands: list[Check] = Field(alias="any_of", min_length=1)
    note: str | None = None

    @property
    def kind(self) -> Literal["any_of"]:
        return "any_of"


class AllOfCheck(ClosedModel):
    """Holds when every operand does."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)

    operands: list[Check] = Field(alias="all_of", min_length=1)
    note: str | None = None

    @property
    def kind(self) -> Literal["all_of"]:
        return "all_of"


OPERATORS = ("not", "any_of", "all_of")


def _check_tag(value: Any) -> str | None:
    """Operators are written by their key (`not: {...}`), leaf checks by their `kind`."""
    if isinstance(value, dict):
        for operator in OPERATORS:
            if operator in value:
                return operator
        kind = value.get("kind")
        return kind if isinstance(kind, str) else None
    kind = getattr(value, "kind", None)
    return kind if isinstance(kind, str) else None


LeafCheck = (
    FileReadCheck
    | ReadBeforeCheck
    | CommandRanCheck
    | RanBeforeCheck
    | ScriptRanCheck
    | UrlFetchedCheck
    | FileWrittenCheck
    | FinalAnswerContainsCheck
    | AgentSaidCheck
    | FinalAnswerMatchesCheck
    | FinalAnswerUrlCheck
    | WorkspaceFileExistsCheck
    | WorkspaceFileContainsCheck
    | WorkspaceFileMatchesCheck
    | WorkspaceEnvValueCheck
    | CommandCheck
    | AgentSpawnedCheck
    | SpawnedAgentsNamedCheck
    | SkillInvokedCheck
)
# The fields of each check kind that hold a regular expression the judge compiles (RE2): what
# `validate` compiles before a run, and what a verdict's detail quotes only in part when long.
PATTERN_FIELDS: dict[str, tuple[str, ...]] = {
    "command_ran": ("pattern",),
    "final_answer_matches": ("pattern",),
    "workspace_file_matches": ("pattern",),
    "ran_before": ("first", "then"),
    "script_ran": ("command", "without"),
}

Check = Annotated[
    Annotated[FileReadCheck, Tag("file_read")]
    | Annotated[ReadBeforeCheck, Tag("read_before")]
    | Annotated[CommandRanCheck, Tag("command_ran")]
    | Annotated[RanBeforeCheck, Tag("ran_before")]
    | Annotated[ScriptRanCheck, Tag("script_ran")]
    | Annotated[UrlFetchedCheck, Tag("url_fetched")]
    | Annotated[FileWrittenCheck, Tag("file_written")]
    | Annotated[FinalAnswerContainsCheck, Tag("final_answer_contains")]
    | Annotated[AgentSaidCheck, Tag("agent_said")]
    | Annotated[FinalAnswerMatchesCheck, Tag("final_answer_matches")]
    | Annotated[FinalAnswerUrlCheck, Tag("final_answer_url")]
    | Annotated[WorkspaceFileExistsCheck, Tag("workspace_file_exists")]
    | Annotated[WorkspaceFileContainsCheck, Tag("workspace_file_contains")]
    | Annotated[WorkspaceFileMatchesCheck, Tag("workspace_file_matches")]
    | Annotated[WorkspaceEnvValueCheck, Tag("workspace_env_value")]
    | Annotated[CommandCheck, Tag("command")]
    | Annotated[AgentSpawnedCheck, Tag("agent_spawned")]
    | Annotated[SpawnedAgentsNamedCheck, Tag("spawned_agents_named")]
    | Annotated[SkillInvokedCheck, Tag("skill_invoked")]
    | Annotated[NotCheck, Tag("not")]
    | Annotated[AnyOfCheck, Tag("any_of")]
    | Annotated[AllOfCheck, Tag("all_of")],
    Discriminator(
        _check_tag,
        custom_error_type="check_kind",
        custom_error_message="a check needs a known `kind`, or one of `not`, `any_of`, `all_of`",
    ),
]
NotCheck.model_rebuild()
AnyOfCheck.model_rebuild()
AllOfCheck.model_rebuild()


def leaf_checks(checks: list[Check]) -> list[LeafCheck]:
    """Every leaf check under `checks`, operators unwrapped (for validating paths and patterns)."""
    leaves: list[LeafCheck] = []
    for check in checks:
        if isinstance(check, NotCheck):
            leaves += leaf_checks([check.operand])
        elif isinstance(check, AnyOfCheck | AllOfCheck):
            leaves += leaf_checks(check.operands)
        else:
            leaves.append(check)
    return leaves


# --------------------------------------------------------------------------- case.yaml


class CaseInput(OpenModel):
    user_prompt: NonEmpty = Field(description="Sent to the agent verbatim.")
    locale: str | None = None


class WriteFile(ClosedModel):
    path: NonEmpty
    content: str = ""


class CopyFixture(ClosedModel):
    source: NonEmpty = Field(description="Relative to the target's fixtures_root.")
    target: NonEmpty = Field(description="Relative to the attempt workspace.")


class GitCommit(ClosedModel):
    """Ours: one commit of `setup.git`'s history: its files written, then exactly they committed."""

    message: NonEmpty = Field(description="The commit message.")
    files: list[WriteFile] = Field(
        default_factory=list,
        description="Files this commit writes and commits (none: an empty commit).",
    )


class GitSetup(ClosedModel):
    """Ours: the workspace is a git repository (branch `main`), with a history built before the
    rest of `setup` changes the working tree, and paths staged after it."""

    commits: list[GitCommit] = Field(
        default_factory=list, description="The history, oldest first (none: an empty repository)."
    )
    stage: list[NonEmpty] = Field(
        default_factory=list,
        description="Workspace paths staged (`git add`) once the rest of `setup` is applied.",
    )


class CaseSetup(OpenModel):
    """Upstream keys plus our declarative vocabulary. Upstream's `setup` is free-form: a key of
    its own loads with a warning and blocks each attempt (a setup mismatch: no agent starts),
    a near miss of a known key is an error at validate (`repo/documents.py`)."""

    docs_index_present: bool | None = None
    env_vars_required: list[NonEmpty] | None = None
    env_vars_notes: str | None = None
    # ours
    write_files: list[WriteFile] | None = None
    remove_paths: list[NonEmpty] | None = None
    copy_fixtures: list[CopyFixture] | None = None
    env: dict[str, str] | None = None
    secret_env_vars: list[NonEmpty] | None = None
    docs_index_path: str | None = Field(
        default=None,
        description="Workspace path of the docs index that `docs_index_present` refers to.",
    )
    # Network facts of the public repos. Agent commands never reach a network (Codex's
    # workspace-write sandbox), so only the facts that say "no network" can be honoured;
    # the loader rejects the others at validate.
    network_mode: Literal["offline", "restricted", "online"] | None = None
    force_fetch_failure: bool | None = Field(
        default=None, description="Live fetches (docs, samples) must fail: always true here."
    )
    sample_repo_available: bool | None = None
    git: GitSetup | None = Field(
        default=None,
        description="Ours: make the workspace a git repository, with commits and staged paths.",
    )

    def declared_variables(self) -> tuple[str, ...]:
        """The environment variables an attempt of the case is given: what a phrase such as
        "the app certificate" may name, and what a `workspace_env_value` check searches for."""
        names = [*(self.env_vars_required or []), *(self.env or {})]
        return tuple(dict.fromkeys(names))


class AssertionEntry(OpenModel):
    description: NonEmpty
    pass_criteria: list[str] = Field(default_factory=list)
    fail_signals: list[str] = Field(default_factory=list)
    evidence_scope: list[str] = Field(default_factory=list)
    checks: list[Check] = Field(
        default_factory=list,
        description="Ours: deterministic checks that decide this entry from the evidence.",
    )


class CaseAssertions(OpenModel):
    summary: str | None = None
    required: list[AssertionEntry] = Field(default_factory=list)
    forbidden: list[AssertionEntry] = Field(default_factory=list)


class CaseNotes(OpenModel):
    why_it_matters: str | None = None
    likely_fix_files: list[str] = Field(default_factory=list)


class GoldenBehavior(ClosedModel):
    """Ours: a scripted behaviour and the status the case must give it (`agentic-eval selftest`)."""

    behavior: NonEmpty = Field(description="Behaviour file, relative to the target directory.")
    expect: Status = Field(description="The case status this behaviour must get.")


class Case(OpenModel):
    case_id: Id
    title: NonEmpty
    input: CaseInput
    setup: CaseSetup = Field(default_factory=CaseSetup)
    assertions: CaseAssertions = Field(alias="assert")
    notes: CaseNotes = Field(default_factory=CaseNotes)
    verification: list[str] = Field(
        default_factory=list,
        description="Upstream: prose instructions for the verifier; shown to the model judge"
        " with every entry it grades, never to the agent.",
    )
    # ours
    expected_output: str | None = Field(
        default=None,
        description="The author's intended outcome (skill-creator's `expected_output`): shown to"
        " the model judge as intent, never to the agent; it is not an assertion.",
    )
    attempts: int | None = Field(default=None, ge=1, le=100)
    timeout_s: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_S, allow_inf_nan=False)
    split: Split | None = None
    golden: list[GoldenBehavior] = Field(
        default_factory=list,
        description="Scripted behaviours with the status each must get; checked by `selftest`.",
    )
    needs: Needs | None = Field(
        default=None,
        description="Programs and Python distributions the agent must find; checked in the"
        " attempt's jail before the agent starts, a missing one is `blocked (environment)`"
        " without an agent run. Added to the suite's and the target's.",
    )


# --------------------------------------------------------------------------- rubrics, evaluations


class RubricDimension(OpenModel):
    name: NonEmpty
    description: str | None = None
    scale: list[int | str] = Field(min_length=1)
    anchors: dict[str, str] | None = Field(
        default=None, description="Score to meaning; YAML integer keys (`1: ...`) are read as text."
    )

    @field_validator("anchors", mode="before")
    @classmethod
    def _score_keys_as_text(cls, value: object) -> object:
        if isinstance(value, dict):
            return {str(key): text for key, text in value.items()}
        return value


class Rubric(OpenModel):
    rubric_id: Id
    title: str | None = None
    description: str | None = None
    dimensions: list[RubricDimension] = Field(min_length=1)


class Variant(OpenModel):
    label: str | None = None
    target_id: str | None = None
    skill_path: str | None = None
    skill_ref: str | None = None
    source_url: str | None = None


class SharedCases(OpenModel):
    from_target: str | None = None
    suites: list[str] = Field(default_factory=list)


class Evaluation(OpenModel):
    eval_id: Id
    mode: Literal["ab", "comparison", "subjective"]
    title: str | None = None
    rubric: str | None = None
    variants: dict[str, Variant] | None = None
    target_id: str | None = None
    suites: list[str] = Field(default_factory=list)
    shared_cases: SharedCases | None = None


PathKey = tuple[str | int, ...]


def unknown_fields(model: BaseModel, at: PathKey = ()) -> list[tuple[PathKey, list[str]]]:
    """Every key kept as an extra anywhere in the model tree, with the keys allowed beside it."""
    fields = type(model).model_fields
    known = [info.alias or name for name, info in fields.items()]
    found: list[tuple[PathKey, list[str]]] = [
        ((*at, key), known) for key in sorted(model.model_extra or {})
    ]
    for name, info in fields.items():
        for where, child in _child_models(getattr(model, name), (*at, info.alias or name)):
            found += unknown_fields(child, where)
    return found


def _child_models(value: object, at: PathKey) -> list[tuple[PathKey, BaseModel]]:
    if isinstance(value, BaseModel):
        return [(at, value)]
    if isinstance(value, list):
        return [(where, m) for i, v in enumerate(value) for where, m in _child_models(v, (*at, i))]
    if isinstance(value, dict):
        return [(where, m) for k, v in value.items() for where, m in _child_models(v, (*at, k))]
    return []


def dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)
