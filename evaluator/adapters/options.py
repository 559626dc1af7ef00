"""An adapter's typed options (`--agent-option KEY=VALUE`): pydantic models, loaded only when a
runner is built, so reading a session never imports them."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, ValidationError

from evaluator.errors import InputError


class AgentOptions(BaseModel):
    """The options every adapter's model extends: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def parse_options(model: type[AgentOptions], raw: Mapping[str, object], agent: str) -> AgentOptions:
    try:
        return model.model_validate(dict(raw))
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"]) or "?"
        known = ", ".join(model.model_fields) or "none"
        raise InputError(
            f"agent option {key!r} for {agent}: {error['msg']} (known: {known})",
            field="--agent-option",
        ) from None
