"""Pilots, plans and traffic."""
