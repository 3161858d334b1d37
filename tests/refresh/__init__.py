"""A refresh from fetch to landing, and its stops."""
