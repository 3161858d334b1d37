"""The suite and the house: layers, docs, assertions."""
