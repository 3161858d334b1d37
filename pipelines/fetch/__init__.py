"""Getting bodies over HTTP: the fetcher, why a fetch failed, encodings, the archive, the offline server."""
