"""The price list's own steps over the generic refresh: the backfill of the EC2 offer's past versions."""
