"""Variants of a skill on the same cases (`agentic-eval evaluate`): the skill against no skill,
two versions, two vendors' skills; run interleaved, compared with `stats`, reported.

`variants` resolves what each variant's workspaces hold (before anything runs), `inspect` checks
a no-skill variant's attempts for the skill reaching them, `driver` runs the variants' attempts
through one executor, `build` and `report` write `evaluation.json` and `eval-report.md`.
"""
