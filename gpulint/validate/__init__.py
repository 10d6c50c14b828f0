"""One JSON Schema layer (local references only) and the schemas gpulint ships."""
