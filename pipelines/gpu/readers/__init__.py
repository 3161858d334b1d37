"""A kind's readers of its providers' pages (GPU cards, price tables, serverless billing terms)."""
