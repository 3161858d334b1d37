"""The static dashboard."""
