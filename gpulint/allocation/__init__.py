"""The GPU allocation and fragmentation report (`gpulint report`)."""
