"""The run history: every finished run, case result and attempt in `<runs root>/history.db`, and
the per-case pass-rate trends read back from it. The last stage, beside gate and report: it reads
finished run directories through the artifact models and never changes them.

`database` opens the history, `record` writes runs into it, `trends` reads the per-case trends
back (its `CaseTrend` model is in `--json` outputs). Import from the modules: this package
imports nothing, so reading the trend model costs no sqlite-utils (which imports numpy)."""
