"""The metrics `score --metric` and `gate --metric` read from a finished run: a base
(`base.py`), a registry (`registry.py`, which names each metric's module and imports it only
when the metric is used) and one module per metric."""
