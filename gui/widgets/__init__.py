"""Widgets shared by the tabs: diff view, Markdown preview, message banner, status line, fonts, tables."""
