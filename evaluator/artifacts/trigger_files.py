"""The artifacts of a trigger run (docs/triggers.md): each attempt's `trigger.json` (what fired,
on a registry proven clean) and the run's `triggers.json` (the metrics). The pipeline writes both
through these models, and `schemas/` holds their JSON Schemas."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from evaluator.artifacts.models import ArtifactModel
from evaluator.contract.triggers import TriggerCase

# Where a discovered skill lives (`triggers/discovery.py` `Scope`).
SkillScope = Literal["workspace", "agent-home", "user-home", "bundled"]


class RegistrySkill(ArtifactModel):
    name: str = Field(description="The skill's name: its front matter's `name`, else its folder's.")
    scope: SkillScope = Field(description="Where the agent could discover it.")
    folder: str = Field(
        description="Its folder, relative to the attempt workspace when inside it, else absolute."
    )


class RegistryView(ArtifactModel):
    skills: list[RegistrySkill] = Field(
        description="Every skill the attempt's agent could discover, as launched."
    )
    reported: list[str] | None = Field(
        description="The skill list the agent itself reported, when its agent reports one; else null."
    )
    problems: list[str] = Field(
        description="What makes the registry unclean (the attempt then is invalid); empty when clean."
    )


class FiredSkill(ArtifactModel):
    skill: str = Field(description="The installed skill that fired.")
    call: int = Field(description="Ordinal of the tool call that fired it (1: the first).")
    first: bool = Field(description="Whether it fired on the agent's first tool call.")
    record: str = Field(description="The evidence record that proves it (`msg-N`).")
    call_record: str | None = Field(
        default=None, description="The tool call's own record, when it is another one."
    )
    detail: str | None = Field(default=None, description="How much of the skill was shown.")
    ref: str = Field(description="`record` in the run: `case-artifacts/...#msg-N`.")


class TriggerAttemptFile(ArtifactModel):
    """`case-artifacts/<prompt id>/attempts/attempt-NN/trigger.json`: one trigger attempt."""

    prompt_id: str = Field(description="The trigger case (prompt) id.")
    expect_trigger: bool = Field(description="Whether the skill should fire on this prompt.")
    skill: str = Field(description="The skill under test.")
    installed: list[str] = Field(description="The skills installed in the workspace, by name.")
    registry: RegistryView = Field(description="The registry check over the attempt's skills.")
    fired: bool | None = Field(
        description="Whether the skill under test fired; null when the attempt could not tell."
    )
    triggers: list[FiredSkill] = Field(description="Each installed skill that fired, once.")
    tool_calls: int | None = Field(description="Tool calls in the session; null without one.")
    timed_out: bool = Field(description="Whether the agent ran out of time.")
    invalid: str | None = Field(
        description="Why the attempt does not count (unclean registry, isolation violation,"
        " no session, undecidable session), or null."
    )
    trigger_only: bool = Field(description="Whether the agent was to be stopped at its decision.")
    stopped_at_decision: bool = Field(description="Whether it was stopped once a skill fired.")
    duration_s: float = Field(description="The agent's time, in seconds.")
    refused: str | None = Field(
        default=None,
        description="When the skill did not fire: the CLI's answer to a call that asked for it by"
        " name and did not succeed (a refused or failed load), else null.",
    )


class ScoreCounts(ArtifactModel):
    tp: int = Field(description="Should fire, fired.")
    fp: int = Field(description="Should not fire, fired.")
    fn: int = Field(description="Should fire, did not.")
    tn: int = Field(description="Should not fire, did not.")


class TriggerScores(ArtifactModel):
    counts: ScoreCounts
    precision: float | None = Field(description="Null when nothing fired.")
    recall: float | None = Field(description="Null without a prompt that should fire.")
    f1: float | None = Field(description="Null when precision or recall is.")
    intervals: dict[str, tuple[float | None, float | None]] = Field(
        description="95% interval of each score, `[low, high]`: Wilson on the counts (over"
        " attempts, also no narrower than a bootstrap over prompts; docs/triggers.md)."
    )


class SuspectFlag(ArtifactModel):
    kind: Literal["nothing-fired", "everything-fired", "mostly-undecided"]
    causes: list[str] = Field(description="The likely causes the outcomes show.")


class PromptSummary(ArtifactModel):
    id: str
    prompt: str
    expect: bool = Field(description="Whether the skill should fire.")
    attempts: int = Field(description="Valid attempts counted.")
    fired: int = Field(description="Valid attempts on which the skill fired.")
    rate: float | None = Field(description="fired / attempts; null without a valid attempt.")
    triggered: bool | None = Field(
        description="Whether a strict majority fired; null without a valid attempt."
    )
    misfires: bool = Field(description="Whether `triggered` is the opposite of `expect`.")
    invalid: int = Field(description="Attempts that do not count.")
    others: dict[str, int] = Field(description="Other skills that fired, with their counts.")


class AgentTime(ArtifactModel):
    total_s: float
    attempts: int
    stopped_at_decision: int = Field(description="Attempts stopped once a skill fired.")
    mean_per_prompt_s: dict[str, float]


class TriggerRunFile(ArtifactModel):
    """`triggers.json` of a trigger run: precision, recall and F1, per prompt and in all."""

    skill: str = Field(description="The skill under test.")
    trigger_file: str = Field(description="The trigger set the run read.")
    format: str = Field(description="Its shape: agentic-eval, skill-creator, should-lists or csv.")
    attempts: int | None = Field(description="Attempts per prompt, K.")
    agent: str = Field(description="The runner the attempts used.")
    distractors: list[str] = Field(description="The distractor skills installed beside it.")
    trigger_only: bool
    over_prompts: TriggerScores = Field(description="Scores with one vote per prompt.")
    over_attempts: TriggerScores = Field(description="Scores over every valid attempt.")
    suspect: SuspectFlag | None = Field(
        description="Set when nothing fired though some prompt should, or everything fired"
        " though some should not: the run has no trigger-f1 score."
    )
    invalid_attempts: int
    undecided_prompts: list[str] = Field(description="Prompts without a valid attempt.")
    prompts: list[PromptSummary]
    agent_time: AgentTime


TRIGGER_PLAN_FILE = "trigger-plan.json"


class KeptTriggerPlan(ArtifactModel):
    """`trigger-plan.json`: what a trigger run measures, kept in its run directory so that
    `--resume` runs the same prompts beside the same skills, whatever the trigger file says
    by then (as a candidate SKILL.md is kept)."""

    trigger_file: str = Field(description="The trigger set the run read.")
    format: str = Field(description="Its shape.")
    skill: str | None = Field(description="The skill the set names, if any.")
    attempts: int | None = Field(description="K as the set gives it, if it does.")
    cases: list[TriggerCase] = Field(description="The prompts, as read.")
    other_targets: bool = Field(description="Whether other targets' skills are distractors.")
    trigger_only: bool = Field(description="Whether attempts stop at the decision.")
    distractors: list[str] = Field(description="The distractor skills' workspace paths.")
