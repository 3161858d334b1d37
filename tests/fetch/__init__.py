"""Fetching, archiving and the sample server."""
