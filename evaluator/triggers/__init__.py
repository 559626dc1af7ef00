"""Trigger evaluation: does the skill fire when it should, and only then (issue 27)."""
