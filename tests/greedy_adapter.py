"""The greedy toy adapter as a module of its own (the registry loads a module's `ADAPTER`)."""

from tests.toy_adapter import GREEDY as ADAPTER

__all__ = ["ADAPTER"]
