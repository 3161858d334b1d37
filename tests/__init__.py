"""ratecard's test suite."""
