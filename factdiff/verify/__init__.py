"""Verification: diff two fact records field by field, and decide the outcome by policy."""
