"""Stage 4: run a fresh agent on the prompt in the attempt workspace.

What every runner shares: the request and handle, the launcher, process control and the pinned
npm CLIs. The runners themselves belong to the adapters (`evaluator/adapters/`).
"""

from evaluator.agents.base import (
    PASSTHROUGH_ENV,
    AgentHandle,
    AgentRequest,
    AgentRunner,
    ModelEndpoint,
    skill_folder,
)

__all__ = [
    "PASSTHROUGH_ENV",
    "AgentHandle",
    "AgentRequest",
    "AgentRunner",
    "ModelEndpoint",
    "skill_folder",
]
