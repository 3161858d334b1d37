"""ratecard benchmark suite: `python -m bench` (see bench/__main__.py)."""

import pipelines  # noqa: F401 - declares the kinds' tables, which every bench's warehouse is made of
