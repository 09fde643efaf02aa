"""Read-only access to DSH session logs: listing, parsing, stability, turn evidence."""
