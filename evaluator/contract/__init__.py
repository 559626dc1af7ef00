"""The eval-repo file shapes (pydantic models) and their located parsing."""
