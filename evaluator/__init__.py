"""agentic-eval: black-box evaluation of coding-agent skills from recorded agent sessions."""

__version__ = "0.1.0"
