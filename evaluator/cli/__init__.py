"""The `agentic-eval` command line: one module per command."""
