"""PySide6 desktop front end over the core store. Nothing here is imported by ``core``."""
