"""One file per declared source: the checks every source gets (tests/support/source_kit.py) and its own."""
