"""Shared statistics: annotation agreement, association tests, R regressions."""
