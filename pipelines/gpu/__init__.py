"""GPU-provider normalisation: canonical GPU names, FX conversion, USD per GPU-hour."""
