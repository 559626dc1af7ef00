"""Trigger cases: a prompt and whether the target's skill should fire on it.

Our own YAML (`trigger_suite:` in target.yaml names the file) is validated like every eval-repo
file; the shapes other tools keep (skill-creator's query list, the should/should-not lists, the
`id,should_trigger,prompt` CSV) are read unchanged by `repo/triggers.py` into the same cases.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evaluator.safepath import ID_PATTERN

Id = Annotated[str, Field(min_length=1, pattern=ID_PATTERN)]


class TriggerCase(BaseModel):
    """One prompt, sent verbatim as the attempt's first message, and whether the skill should
    fire on it (`expect_trigger: false`: a near miss, or another skill's prompt)."""

    model_config = ConfigDict(extra="forbid")

    id: Id
    prompt: str = Field(min_length=1, description="Sent to the agent verbatim.")
    expect_trigger: bool
    note: str | None = Field(default=None, description="Why this prompt should (not) fire it.")


class TriggerSuite(BaseModel):
    """`trigger_suite:` of a target: the prompts its skill's description is measured on."""

    model_config = ConfigDict(extra="forbid")

    trigger_suite_id: Id
    title: str | None = None
    skill: str | None = Field(
        default=None,
        description="The skill the cases are about, by name (its folder); default: the target's"
        " entry skill.",
    )
    attempts: int | None = Field(
        default=None, ge=1, le=100, description="Attempts per prompt (K); default 3."
    )
    cases: list[TriggerCase] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> TriggerSuite:
        seen: set[str] = set()
        for case in self.cases:
            if case.id in seen:
                raise ValueError(f"duplicate trigger case id {case.id!r}")
            seen.add(case.id)
        return self
