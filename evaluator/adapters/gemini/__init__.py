"""Gemini CLI: the third agent, built only through the adapter seam (docs/agents.md)."""
