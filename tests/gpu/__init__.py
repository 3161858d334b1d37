"""GPU names and normalisation."""
