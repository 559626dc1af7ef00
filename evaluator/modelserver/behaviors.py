"""Scripted agent behaviours: which request they answer, and the steps they play in order."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from evaluator.contract.parse import validation_error_to_input_error
from evaluator.errors import InputError
from evaluator.prompting import agent_prompt, user_prompt_of
from evaluator.yamlsource import load_yaml

ANY_AGENT = "any"
# The validation context key under which a loader names the agents a behaviour may play.
AGENTS_CONTEXT = "agents"


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Match(StrictModel):
    """How a behaviour recognises the thread it plays: by the thread's first real user message.

    `prompt_equals` compares with the prompt as the case author wrote it (the evaluator's
    boundary note removed); `prompt_contains` and `prompt_regex` search the whole message."""

    prompt_contains: str | None = None
    prompt_regex: str | None = None
    prompt_equals: str | None = None
    thread: Literal["root", "child", "any"] = "any"
    # Which agent the behaviour plays (`any`, or an agent's adapter name): the server tells them
    # apart by the protocol they speak. The names a file may give are the adapters registered,
    # handed to the loader (`load_behaviors(..., agents)`): this package knows none of them.
    agent: str = Field(default=ANY_AGENT, min_length=1)

    @field_validator("agent")
    @classmethod
    def _known_agent(cls, value: str, info: ValidationInfo) -> str:
        known = (info.context or {}).get(AGENTS_CONTEXT)
        if value != ANY_AGENT and known is not None and value not in known:
            names = ", ".join([ANY_AGENT, *known])
            raise ValueError(f"unknown agent {value!r} (known: {names})")
        return value

    @model_validator(mode="after")
    def _needs_a_rule(self) -> Match:
        if not (self.prompt_contains or self.prompt_regex or self.prompt_equals):
            raise ValueError("give prompt_contains, prompt_regex or prompt_equals")
        if self.prompt_regex:
            try:
                re.compile(self.prompt_regex)
            except re.error as exc:
                raise ValueError(f"invalid prompt_regex: {exc}") from None
        return self

    def accepts(self, prompt: str, is_child: bool, agent: str = ANY_AGENT) -> bool:
        if (self.thread == "root" and is_child) or (self.thread == "child" and not is_child):
            return False
        if ANY_AGENT not in (self.agent, agent) and agent != self.agent:
            return False
        if self.prompt_equals is not None and user_prompt_of(prompt) != self.prompt_equals:
            return False
        if self.prompt_contains is not None and self.prompt_contains not in prompt:
            return False
        return not (self.prompt_regex is not None and not re.search(self.prompt_regex, prompt))


class SpawnSpec(StrictModel):
    message: str
    fork_context: bool = False
    # Claude Code's Agent tool: the helper runs in the background and the call answers at once
    # (Codex's spawn always does; Gemini CLI's never).
    background: bool = False


class WaitSpec(StrictModel):
    timeout_ms: int = 300_000


class WriteSpec(StrictModel):
    """Create a file (Claude: `Write`; Codex: an `apply_patch` that adds it)."""

    path: str = Field(min_length=1)
    content: str


class EditSpec(StrictModel):
    """Replace text in a file (Claude: `Read` then `Edit` in one turn, as Edit needs the file
    read first; Codex: an `apply_patch` update)."""

    path: str = Field(min_length=1)
    old: str = Field(min_length=1)
    new: str


class SearchSpec(StrictModel):
    """Claude: `Glob`/`Grep` with these inputs; Codex: `find -name` / `grep -rn` in `path`."""

    pattern: str = Field(min_length=1)
    path: str | None = None


class CallSpec(StrictModel):
    """A call to one of the agent's own tools by its own name, with its arguments as given: for
    what the other actions do not script (Gemini's `read_many_files`, `web_fetch`, a read with
    `offset`/`limit`)."""

    name: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)


ACTIONS = (
    "cmd",
    "patch",
    "read",
    "skill",
    "write",
    "edit",
    "glob",
    "grep",
    "call",
    "spawn",
    "wait",
    "final",
    "final_json",
    "http_error",
    "when",
)


class When(StrictModel):
    """A branch condition: on the outputs of the tool calls played before the branch, on what
    the request shows the model before the thread's first tool call (`request_contains`: its
    instructions, tool definitions and opening messages, where agents list the skills they
    offer with their descriptions), or a seeded draw per attempt (`chance`), so a K-attempt run
    can be flaky deterministically."""

    output_contains: str | None = Field(default=None, min_length=1)
    request_contains: str | None = Field(default=None, min_length=1)
    chance: float | None = Field(default=None, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _one_condition(self) -> When:
        given = [self.output_contains, self.request_contains, self.chance]
        if sum(value is not None for value in given) != 1:
            raise ValueError("give exactly one of output_contains, request_contains or chance")
        return self

    def holds(self, earlier_outputs: list[str], draw: float, context: str = "") -> bool:
        if self.chance is not None:
            return draw < self.chance
        if self.request_contains is not None:
            return self.request_contains in context
        text = self.output_contains or ""
        return any(text in output for output in earlier_outputs)


def seeded_draw(seed: int, attempt_key: str, branch: int) -> float:
    """A uniform number in [0, 1) fixed by the behaviour's seed, the attempt and the branch's
    place on the path: the same attempt always takes the same branch, across requests and runs."""
    digest = hashlib.sha256(f"{seed}:{attempt_key}:{branch}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class Step(StrictModel):
    """One model turn. Exactly one action key is set; `delay_s` holds the reply back first.

    A branch (`when` + `then`, optional `else`) plays no turn itself: it splices in `then` when
    an earlier tool output of the thread contains the text, else `else`; so an agent that read
    an instruction in SKILL.md can follow it."""

    cmd: str | None = None
    workdir: str | None = None
    # How long Codex waits for the command before answering "still running" (its own default
    # is 10 s and it caps the wait at 30 s): a slow command, such as a CLI call on a loaded
    # machine, must finish in its turn instead of going on in the background.
    yield_time_ms: int | None = Field(default=None, ge=1)
    patch: str | None = None
    read: str | None = None  # a file path (Claude: `Read`; Codex: `cat`)
    # A skill loaded by name as the CLI loads it (Claude: the `Skill` tool, whose body arrives
    # as a message of its own; Codex, which has no such tool: `cat` of its SKILL.md).
    skill: str | None = None
    write: WriteSpec | None = None
    edit: EditSpec | None = None
    glob: SearchSpec | None = None
    grep: SearchSpec | None = None
    call: CallSpec | None = None
    spawn: SpawnSpec | None = None
    wait: WaitSpec | None = None
    final: str | None = None
    # A structured final answer (a judge's verdict under `--output-schema`), sent as JSON text.
    final_json: dict[str, Any] | None = None
    http_error: int | None = Field(default=None, ge=400, le=599)
    when: When | None = None
    then: list[Step] | None = None
    else_: list[Step] | None = Field(default=None, alias="else")
    delay_s: float = Field(default=0.0, ge=0.0)

    @model_validator(mode="after")
    def _one_action(self) -> Step:
        actions = [name for name in ACTIONS if getattr(self, name) is not None]
        if len(actions) != 1:
            raise ValueError(
                f"each step needs exactly one of {', '.join(ACTIONS)}"
                f" (got {', '.join(actions) or 'none'})"
            )
        if (self.workdir is not None or self.yield_time_ms is not None) and self.cmd is None:
            raise ValueError("workdir and yield_time_ms only go with cmd")
        if self.when is None and (self.then is not None or self.else_ is not None):
            raise ValueError("`then` and `else` only go with `when`")
        if self.when is not None and self.then is None:
            raise ValueError("`when` needs `then` (and may have `else`)")
        return self

    @property
    def action(self) -> str:
        for name in ACTIONS:
            if getattr(self, name) is not None:
                return name
        raise AssertionError("validated step has an action")


def next_step(
    steps: list[Step],
    outputs: list[str],
    attempt_key: str = "",
    seed: int = 0,
    context: str = "",
) -> Step | None:
    """The step to play after the thread's tool calls whose outputs are `outputs`, in order.

    The server keeps no state, so the path through the branches is replayed on every request;
    a branch is decided on the outputs before it, which never change, on the request's context
    before the first tool call (`context`), which never changes either, or on a draw seeded by
    `seed`, `attempt_key` and the branch's place: each replay agrees."""
    played = 0
    branches = 0

    def walk(sequence: list[Step]) -> Step | None:
        nonlocal played, branches
        for step in sequence:
            if step.when is not None:
                branches += 1
                draw = seeded_draw(seed, attempt_key, branches)
                holds = step.when.holds(outputs[:played], draw, context)
                taken = step.then if holds else step.else_
                found = walk(taken or [])
                if found is not None:
                    return found
                continue
            if played == len(outputs):
                return step
            played += 1
        return None

    return walk(steps)


class Behavior(StrictModel):
    name: str
    description: str = ""
    match: Match
    # Seeds the `chance` branches: another seed, another (still fixed) pattern across attempts.
    seed: int = 0
    steps: list[Step] = Field(min_length=1)
    # The sub-agents this behaviour spawns, each a behaviour matched on its spawn message: one
    # file scripts an evaluator agent together with the children it starts.
    subagents: list[Behavior] = Field(default_factory=list)

    def with_subagents(self) -> list[Behavior]:
        return [self, *(b for child in self.subagents for b in child.with_subagents())]

    @field_validator("steps")
    @classmethod
    def _ends_in_final(cls, steps: list[Step]) -> list[Step]:
        # Said at `steps`, naming what the last step is (a `cmd` is no branch).
        last = steps[-1].action
        if last not in ("final", "final_json", "http_error"):
            what = "a branch (`when`)" if last == "when" else f"`{last}`"
            raise ValueError(
                f"the last step must be `final` (or `final_json`, `http_error`), not {what}:"
                f" add a `final` step after steps[{len(steps) - 1}]"
            )
        return steps


@dataclass(frozen=True)
class Selection:
    behavior: Behavior | None
    error: str | None = None


class BehaviorLibrary:
    """An ordered set of behaviours; a prompt must match exactly one of them."""

    def __init__(
        self,
        behaviors: list[Behavior],
        source: Path | None = None,
        files: dict[str, Path] | None = None,
    ) -> None:
        behaviors = [b for behavior in behaviors for b in behavior.with_subagents()]
        names = [b.name for b in behaviors]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise InputError(f"duplicate behaviour names: {', '.join(duplicates)}", path=source)
        self.behaviors = behaviors
        self.source = source
        self.files = files or {}  # behaviour name -> the file it came from

    def select(self, prompt: str, is_child: bool, agent: str = ANY_AGENT) -> Selection:
        hits = [b for b in self.behaviors if b.match.accepts(prompt, is_child, agent)]
        if len(hits) == 1:
            return Selection(hits[0])
        # The prompt as the case author wrote it (the evaluator's boundary note is not theirs);
        # repr shows its line breaks as `\n`.
        head = user_prompt_of(prompt)[:120]
        if not hits:
            return Selection(None, f"no scripted behaviour matches prompt {head!r}")
        names = ", ".join(b.name for b in hits)
        return Selection(None, f"several scripted behaviours match prompt {head!r}: {names}")


BEHAVIOR_KEYS = sorted(
    {
        name
        for model in (
            Behavior,
            Match,
            Step,
            SpawnSpec,
            WaitSpec,
            WriteSpec,
            EditSpec,
            SearchSpec,
            When,
        )
        for name in model.model_fields
    }
)


def load_behavior_file(path: Path, agents: Collection[str]) -> Behavior:
    """One behaviour file; `match.agent` may name `any` or one of `agents` (the adapters')."""
    doc = load_yaml(path)
    if not isinstance(doc.data, dict):
        raise doc.error((), "a behaviour file holds one mapping")
    try:
        return Behavior.model_validate(doc.data, context={AGENTS_CONTEXT: tuple(agents)})
    except ValidationError as exc:
        raise validation_error_to_input_error(exc, doc, BEHAVIOR_KEYS) from None


def behavior_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        raise InputError("behaviour directory not found", path=directory)
    files = sorted([*directory.glob("*.yaml"), *directory.glob("*.yml")])
    if not files:
        raise InputError("no behaviour files (*.yaml) in directory", path=directory)
    return files


def load_behaviors(directory: Path, agents: Collection[str]) -> BehaviorLibrary:
    """Every behaviour file of `directory`, which may name the agents `agents` (`match.agent`)."""
    files = behavior_files(directory)
    loaded = [(load_behavior_file(f, agents), f) for f in files]
    return BehaviorLibrary(
        [b for b, _ in loaded], source=directory, files={b.name: f for b, f in loaded}
    )


UNNAMED_AGENT = "\x00an agent no behaviour names"


def coverage_problems(
    library: BehaviorLibrary,
    case_prompts: dict[str, str],
    trigger_prompts: dict[str, str] | None = None,
    *,
    other_prompts: dict[str, str] | None = None,
) -> list[InputError]:
    """What would make a scripted run answer the wrong thread: a behaviour that matches no case
    prompt (nor any message a behaviour spawns), and two behaviours matching the same prompt.
    `case_prompts` maps case ids to their `input.user_prompt`, as the author wrote them.

    With `trigger_prompts` (the target's trigger set, which `agentic-eval triggers` plays to
    the same folder), a behaviour matching one of those is used too. Overlaps are checked
    within each set, as `run` and `triggers` each check theirs: a behaviour for a case and one
    for a trigger prompt never answer the same run. `other_prompts` are the case prompts of the
    repo's other targets: one folder scripts a whole repo, as `validate --behaviors` checks it,
    so a behaviour for another target's case is not stale (it answers no prompt of this run)."""
    unused = unmatched_behaviors(library, case_prompts)
    if other_prompts and unused:
        unused = [n for n in unused if n in unmatched_behaviors(library, other_prompts)]
    what = "case prompt"
    problems: list[InputError] = []
    if trigger_prompts:
        unused = [n for n in unused if n in unmatched_behaviors(library, trigger_prompts)]
        what = "case prompt nor trigger prompt"
        problems = overlapping_behaviors(library, trigger_prompts)
    unmatched = [
        _match_error(library, name, f"behaviour {name!r} matches no {what}") for name in unused
    ]
    return unmatched + overlapping_behaviors(library, case_prompts) + problems


def _match_error(library: BehaviorLibrary, name: str, message: str) -> InputError:
    """`message` at the behaviour's `match:` line (a sub-agent's sits inside its parent's file,
    so only the file is named then)."""
    path = library.files.get(name)
    if path is None:
        return InputError(message, path=library.source, field="match")
    doc = load_yaml(path)
    if isinstance(doc.data, dict) and doc.data.get("name") == name:
        return doc.error(("match",), message)
    return InputError(message, path=path, field="match")


def _prompts_and_spawns(
    library: BehaviorLibrary, case_prompts: dict[str, str]
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    prompts = [(f"case {case_id!r}", agent_prompt(p)) for case_id, p in case_prompts.items()]
    spawned = [
        (f"the spawn of behaviour {b.name!r}", step.spawn.message)
        for b in library.behaviors
        for step in b.steps
        if step.spawn is not None
    ]
    return prompts, spawned


def answers_judge(behavior: Behavior) -> bool:
    """Whether the behaviour scripts the model judge: a `final_json` step anywhere, its last
    step or one inside a branch (a judge that reads its evidence before answering ends in a
    branch, and a behaviour's last step must be a `final`)."""

    def has_final_json(steps: list[Step]) -> bool:
        return any(
            step.final_json is not None
            or has_final_json(step.then or [])
            or has_final_json(step.else_ or [])
            for step in steps
        )

    return has_final_json(behavior.steps)


def unmatched_behaviors(library: BehaviorLibrary, case_prompts: dict[str, str]) -> list[str]:
    """The names of the behaviours that match no case prompt nor any message a behaviour
    spawns. A behaviour that answers the model judge (its prompt is ours, not a case's) need
    not match one: one `--behaviors` folder scripts both."""
    prompts, spawned = _prompts_and_spawns(library, case_prompts)
    return [
        behavior.name
        for behavior in library.behaviors
        if not answers_judge(behavior)
        and not (
            any(
                behavior.match.accepts(prompt, is_child)
                for _, prompt in prompts
                for is_child in (False, True)
            )
            or any(behavior.match.accepts(message, True) for _, message in spawned)
        )
    ]


def unanswered_cases(library: BehaviorLibrary, case_prompts: dict[str, str]) -> list[str]:
    """The cases whose prompt no behaviour answers (judge behaviours aside): their attempts
    would end in the server's `no scripted behaviour matches` error, blocked."""
    agents = [b for b in library.behaviors if not answers_judge(b)]
    return [
        case_id
        for case_id, prompt in case_prompts.items()
        if not any(
            b.match.accepts(agent_prompt(prompt), is_child)
            for b in agents
            for is_child in (False, True)
        )
    ]


def overlapping_behaviors(
    library: BehaviorLibrary, case_prompts: dict[str, str]
) -> list[InputError]:
    """Two behaviours matching the same prompt (or spawned message): one would answer the
    other's thread."""
    problems: list[InputError] = []
    prompts, spawned = _prompts_and_spawns(library, case_prompts)
    # Every agent a behaviour names, and one none names (which only `any` behaviours play).
    named = dict.fromkeys(b.match.agent for b in library.behaviors if b.match.agent != ANY_AGENT)
    agents = [*named, UNNAMED_AGENT]
    for label, prompt in [*prompts, *spawned]:
        threads = (False, True) if label.startswith("case ") else (True,)
        for is_child, agent in ((c, a) for c in threads for a in agents):
            hits = [b.name for b in library.behaviors if b.match.accepts(prompt, is_child, agent)]
            if len(hits) > 1:
                thread = "a sub-agent" if is_child else "the root thread"
                problems.append(
                    InputError(
                        f"behaviours {', '.join(map(repr, hits))} all match the prompt of"
                        f" {label} (as {thread}); make their `match` rules exclusive",
                        path=library.files.get(hits[1], library.source),
                        field="match",
                    )
                )
                break
    return problems
