"""The sources file: what is fetched from where, its errors, and the bundled files' locations."""
