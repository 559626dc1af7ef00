"""Comparing a candidate run with a base run, case by case, with statistics over K attempts:
`build.compare_runs` (with the statistics of `evaluator.stats`), `classify.classify`,
`write.write_comparison`, and the comparison's model in `model`, which `schemas check` and the
`--json` outputs read. Import from the modules: this package imports nothing, so reading the
model loads no statistics."""
