"""Expectation suites and their runner."""
