"""A rule's fix: proposed in paths, resolved into text edits."""
