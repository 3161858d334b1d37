"""What every page reader shares: cell text, tables and cards found by what they mean, JSON bodies, archived
files. The adapters and the price-list readers stand on it."""
