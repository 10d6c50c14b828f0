"""NVIDIA device plugin and GPU Operator inputs: what a file is, and the facts in it.

``recognise`` places a document by content (device plugin chart values, GPU
Operator chart values, the plugin's config file); ``values``, ``operator``,
``plugin_config`` and ``containers`` read each input; ``facts`` turns them into
the small picklable facts that the cross-file rules (GPU407, GPU504, GPU601,
GPU602) compare. Facts come from gpulint's catalog, which cites its sources.
"""
