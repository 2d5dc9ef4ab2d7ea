"""crash-triage library: parsers, symbolizer, signatures, buckets, reports."""
