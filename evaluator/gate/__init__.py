"""Scores and gate decisions over finished runs: `score`'s verdict and SkillOpt's gate."""
