"""Helpers the tests share: local servers, landed warehouses, backends, a browser."""
