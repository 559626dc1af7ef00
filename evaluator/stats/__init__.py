"""Statistics for comparing variants of a skill on the same cases (docs/statistics.md).

One concept per module: `proportion` (Wilson and Newcombe intervals), `exact` (the per-case
exact test), `holm` (the correction across cases), `paired` (cases as pairs: the bootstrap
interval and the sign-flip test), `variants` (all of it for two variants, the hurt cases first),
`noise` (the A/A noise floor and the headline that respects it), `cost` (tokens and time per
point gained), `spread` (rubric scores: mean, spread, head-to-head wins). Nothing here is
imported by a command's `--help`; scipy is imported by the functions that call it, when first
called: `scipy.stats` alone takes most of a second to import, which `compare` and `evaluate`
paid before reading their arguments, and a comparison with nothing to test never pays.
"""
