"""Statistics for comparing variants of a skill on the same cases (docs/statistics.md).

One concept per module: `proportion` (Wilson and Newcombe intervals), `exact` (the per-case
exact test), `holm` (the correction across cases), `paired` (cases as pairs: the bootstrap
interval and the sign-flip test), `variants` (all of it for two variants, the hurt cases first),
`noise` (the A/A noise floor and the headline that respects it), `cost` (tokens and time per
point gained), `spread` (rubric scores: mean, spread, head-to-head wins). The modules import scipy;
nothing here is imported by a command's `--help`.
"""
