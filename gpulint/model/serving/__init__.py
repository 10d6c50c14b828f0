"""Model servers: what they serve, how parallel, whether the model fits."""
