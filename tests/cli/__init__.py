"""The ratecard command."""
