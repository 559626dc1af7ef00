"""The judge-backend interface: one model call in (a prompt, an answer schema, a bundle), its raw
reply out. Backends never interpret the reply; `verify.py` does, the same way for every backend."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evaluator.agents.base import ModelEndpoint


@dataclass(frozen=True)
class JudgeCall:
    prompt: str
    answer_schema: dict[str, Any]
    bundle: Path  # the read-only judge workspace: the evidence bundle and nothing else
    scratch: (
        Path  # a fresh directory for this call's own files (not under /tmp: some CLIs refuse it)
    )
    timeout_s: float


@dataclass(frozen=True)
class JudgeReply:
    """The judge's final message as text, or why there is none (timeout, outage, crash)."""

    raw: str | None
    error: str | None = None


class JudgeBackend(ABC):
    """One way of asking a model for a verdict. Agent adapters provide them
    (`AgentAdapter.judge_backend`): the judge is an agent CLI run on the evidence bundle."""

    name: str

    @property
    @abstractmethod
    def model(self) -> str:
        """The model name recorded with every verdict and part of every cache key."""

    @abstractmethod
    def ask(self, call: JudgeCall) -> JudgeReply:
        """Runs one judge call to completion or timeout; never raises for a judge fault."""

    def credentials(self) -> dict[str, str]:
        """The credentials this backend passes to its model, for redaction."""
        return {}

    def default_endpoint(self) -> str | None:
        """The URL this judge reaches its model at when no endpoint is given, for the login it
        has (its agent's `default_endpoints`), or None: another endpoint, or not known."""
        return None


class EndpointJudgeBackend(JudgeBackend):
    """A backend asking one endpoint's model: what every agent CLI's judge shares."""

    def __init__(self, endpoint: ModelEndpoint) -> None:
        if not endpoint.model:
            raise ValueError(f"the {self.name} judge backend needs a model name")
        self.endpoint = endpoint

    @property
    def model(self) -> str:
        assert self.endpoint.model is not None
        return self.endpoint.model
