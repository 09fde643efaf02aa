"""Memory that follows you (issue 28): moving a workspace to a new folder, and syncing the owned
part of the root with a git remote. The store stays the only writer of memory; this package only
plans, reviews and calls the store's public operations."""
