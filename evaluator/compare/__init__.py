"""Comparing a candidate run with a base run, case by case, with statistics over K attempts:
`build.compare_runs` and `write.write_comparison` (the statistics and scipy behind them),
`classify.classify`, the comparison's model in `model` (read by `schemas check` and the
`--json` outputs without the statistics). Import from the modules: this package imports
nothing, so reading the model costs no second of scipy."""
