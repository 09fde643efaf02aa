"""The headless ``dsh-memory`` command line (never imports Qt)."""
