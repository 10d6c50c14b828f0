"""Runs the rules over documents, in this process or in workers."""
