"""gpulint: static analysis for GPU workloads on Kubernetes."""

__version__ = "0.1.0"
