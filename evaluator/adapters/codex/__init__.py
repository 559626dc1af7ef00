"""Codex CLI: its adapter (`adapter.py`), runners, CLI, home, session store and format."""
