"""How single values read: quantities, placeholders, image references, field shapes, GPU
resource names and counts."""
