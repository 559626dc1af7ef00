"""Harbor's Agent Trajectory Interchange Format (ATIF) v1.7, as pydantic models.

Written from the published specification (harbor-framework/harbor, `rfcs/0001-trajectory-format.md`,
v1.7): field names, which are required, and the rules its reference models check (sequential step
ids, agent-only step fields, ISO 8601 timestamps, observation results that answer a tool call of
their own step, embedded sub-agents with a unique `trajectory_id`, and v1.7's rule that a sub-agent
reference names a `trajectory_id` or a `trajectory_path`). Like Harbor's own models, every object
forbids unknown keys. Harbor needs Python 3.12; these models let us validate on 3.11.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

ATIF_VERSION = "ATIF-v1.7"
SchemaVersion = Literal[
    "ATIF-v1.0",
    "ATIF-v1.1",
    "ATIF-v1.2",
    "ATIF-v1.3",
    "ATIF-v1.4",
    "ATIF-v1.5",
    "ATIF-v1.6",
    "ATIF-v1.7",
]
# Fields a step may carry only when the agent produced it (the specification's "Only applicable
# when source is agent").
AGENT_ONLY_FIELDS = ("model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics")


class AtifModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ImageSource(AtifModel):
    media_type: Literal["image/jpeg", "image/png", "image/gif", "image/webp"]
    path: str


class ContentPart(AtifModel):
    type: Literal["text", "image"]
    text: str | None = None
    source: ImageSource | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> ContentPart:
        if self.type == "text" and (self.text is None or self.source is not None):
            raise ValueError("a text part has `text` and no `source`")
        if self.type == "image" and (self.source is None or self.text is not None):
            raise ValueError("an image part has `source` and no `text`")
        return self


Content = str | list[ContentPart]


class ToolCall(AtifModel):
    tool_call_id: str
    function_name: str
    arguments: dict[str, Any]
    extra: dict[str, Any] | None = None


class SubagentTrajectoryRef(AtifModel):
    trajectory_id: str | None = None
    trajectory_path: str | None = None
    session_id: str | None = None  # informational only: never a resolution key (v1.7)
    extra: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _resolvable(self) -> SubagentTrajectoryRef:
        if self.trajectory_id is None and self.trajectory_path is None:
            raise ValueError("a sub-agent reference needs trajectory_id or trajectory_path")
        return self


class ObservationResult(AtifModel):
    source_call_id: str | None = None
    content: Content | None = None
    subagent_trajectory_ref: list[SubagentTrajectoryRef] | None = None
    extra: dict[str, Any] | None = None


class Observation(AtifModel):
    results: list[ObservationResult]


class Metrics(AtifModel):
    prompt_tokens: int | None = Field(default=None, ge=0)
    completion_tokens: int | None = Field(default=None, ge=0)
    cached_tokens: int | None = Field(default=None, ge=0)
    cost_usd: float | None = Field(default=None, ge=0)
    prompt_token_ids: list[int] | None = None
    completion_token_ids: list[int] | None = None
    logprobs: list[float] | None = None
    extra: dict[str, Any] | None = None


class Step(AtifModel):
    step_id: int = Field(ge=1)
    timestamp: str | None = None
    source: Literal["system", "user", "agent"]
    model_name: str | None = None
    reasoning_effort: str | float | None = None
    message: Content
    reasoning_content: str | None = None
    tool_calls: list[ToolCall] | None = None
    observation: Observation | None = None
    metrics: Metrics | None = None
    extra: dict[str, Any] | None = None
    llm_call_count: int | None = Field(default=None, ge=0)
    is_copied_context: bool | None = None

    @field_validator("timestamp")
    @classmethod
    def _iso_8601(cls, value: str | None) -> str | None:
        if value is not None:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
        return value

    @model_validator(mode="after")
    def _agent_only(self) -> Step:
        if self.source != "agent":
            for name in AGENT_ONLY_FIELDS:
                if getattr(self, name) is not None:
                    raise ValueError(f"`{name}` is only valid on an agent step")
        if self.source == "agent" and self.llm_call_count == 0:
            for name in ("reasoning_effort", "reasoning_content", "metrics"):
                if getattr(self, name) is not None:
                    raise ValueError(f"`{name}` must be absent when llm_call_count is 0")
        return self

    @model_validator(mode="after")
    def _results_answer_own_calls(self) -> Step:
        ids = [call.tool_call_id for call in self.tool_calls or []]
        if len(ids) != len(set(ids)):
            raise ValueError(f"step {self.step_id} repeats a tool_call_id")
        for result in self.observation.results if self.observation else []:
            if result.source_call_id is not None and result.source_call_id not in ids:
                raise ValueError(
                    f"step {self.step_id}: observation answers `{result.source_call_id}`,"
                    " which is not one of its tool_calls"
                )
        return self


class Agent(AtifModel):
    name: str
    version: str
    model_name: str | None = None
    tool_definitions: list[dict[str, Any]] | None = None
    extra: dict[str, Any] | None = None


class FinalMetrics(AtifModel):
    total_prompt_tokens: int | None = Field(default=None, ge=0)
    total_completion_tokens: int | None = Field(default=None, ge=0)
    total_cached_tokens: int | None = Field(default=None, ge=0)
    total_cost_usd: float | None = Field(default=None, ge=0)
    total_steps: int | None = Field(default=None, ge=0)
    extra: dict[str, Any] | None = None


class Trajectory(AtifModel):
    schema_version: SchemaVersion
    session_id: str | None = None
    trajectory_id: str | None = None
    agent: Agent
    steps: list[Step]
    notes: str | None = None
    final_metrics: FinalMetrics | None = None
    continued_trajectory_ref: str | None = None
    extra: dict[str, Any] | None = None
    subagent_trajectories: list[Trajectory] | None = None

    @model_validator(mode="after")
    def _sequential_steps(self) -> Trajectory:
        for index, step in enumerate(self.steps, start=1):
            if step.step_id != index:
                raise ValueError(f"steps[{index - 1}].step_id is {step.step_id}, expected {index}")
        return self

    @model_validator(mode="after")
    def _embedded_subagents(self) -> Trajectory:
        embedded: set[str] = set()
        for index, child in enumerate(self.subagent_trajectories or []):
            if child.trajectory_id is None:
                raise ValueError(f"subagent_trajectories[{index}] has no trajectory_id")
            if child.trajectory_id in embedded:
                raise ValueError(f"subagent_trajectories repeats `{child.trajectory_id}`")
            embedded.add(child.trajectory_id)
        for step in self.steps:
            for result in step.observation.results if step.observation else []:
                for ref in result.subagent_trajectory_ref or []:
                    if ref.trajectory_path is None and ref.trajectory_id not in embedded:
                        raise ValueError(
                            f"step {step.step_id} refers to sub-agent `{ref.trajectory_id}`,"
                            " which is not in subagent_trajectories"
                        )
        return self

    def to_json_dict(self) -> dict[str, Any]:
        """What is written: unset optional fields are left out, as Harbor writes them."""
        return self.model_dump(mode="json", exclude_none=True)
