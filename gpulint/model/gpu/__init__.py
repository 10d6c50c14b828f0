"""GPUs: resource names, quantities held, labels, products, MIG, images."""
