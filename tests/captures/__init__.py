"""Real captures of the services, read by today's parsers."""
