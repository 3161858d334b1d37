"""Searching the current offers (`accelerator_offers`) by accelerator, size, region, kind and price: the one query
`ratecard find` and the Python API (`ratecard.query`) share."""
