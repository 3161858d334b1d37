"""One module per page shape."""
