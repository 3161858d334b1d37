"""The benches run and report."""
