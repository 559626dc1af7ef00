"""Claude Code: its adapter (`adapter.py`), runners, CLI, session store and format."""
