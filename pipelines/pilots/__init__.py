"""Pilot measurements and migration plans: user input priced by the warehouse's views."""
