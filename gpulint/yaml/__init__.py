"""YAML to documents with positions; scalars resolved as the API server resolves them."""
