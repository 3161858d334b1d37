"""What every page reader shares."""
