"""Adapters that let skill optimisers (SkillOpt, CodexOpt) use our verified pass rate as a score."""
