"""Specifications and reference files."""
