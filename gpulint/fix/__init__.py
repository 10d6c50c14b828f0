"""Fixes: what a rule proposes (``spec``), turned into text edits from node positions
(``resolve``, ``render``), applied and checked by re-linting (``apply``, ``fixer``).

A fix never re-dumps a document: it replaces spans and inserts lines, so every byte
outside the edited spans (comments, quoting, key order, anchors, CRLF) stays as it was.
"""
