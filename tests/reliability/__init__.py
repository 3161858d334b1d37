"""Reliability scenarios: faults, processes and promises, each measured."""
