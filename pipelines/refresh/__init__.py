"""One source and many: fetch, check, land or quarantine; re-parsing; the thread plumbing of a refresh."""
