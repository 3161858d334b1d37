"""ratecard's pipeline: sources, fetch, reading, the kinds of data, refresh, orchestration and the CLI.

Importing it declares every kind's tables to the warehouse (pipelines/kinds.py), so any process that uses the
pipeline opens warehouses with the whole schema.
"""

import pipelines.kinds  # noqa: F401 - declares the kinds' schema parts
