"""Warehouse: files, versions, lakes, views and exports."""
