"""The built-in rule pack: one module a rule, listed here explicitly."""

from gpulint.rules import (
    gpu101_gpu_limit_missing,
    gpu102_gpu_request_limit_mismatch,
    gpu103_gpu_quantity_invalid,
    gpu104_gpu_count_exceeds_node,
    gpu105_gpu_sidecar_holds_gpu,
    gpu106_gpu_container_resources_incomplete,
    gpu107_gpu_parallelism_mismatch,
    gpu210_gpu_unschedulable,
    gpu211_gpu_capacity_short,
    gpu301_gpu_image_pull_always,
    gpu302_gpu_image_unpinned,
    gpu701_nvidia_visible_devices_set,
    gpu702_cuda_visible_devices_mismatch,
    gpu703_gpu_privileged,
    gpu704_gpu_device_hostpath,
    gpu705_gpu_shm_missing,
    gpu706_env_shell_variable,
)

from gpulint.registry import Rule

RULES: list[Rule] = [
    gpu101_gpu_limit_missing.rule,
    gpu102_gpu_request_limit_mismatch.rule,
    gpu103_gpu_quantity_invalid.rule,
    gpu104_gpu_count_exceeds_node.rule,
    gpu105_gpu_sidecar_holds_gpu.rule,
    gpu106_gpu_container_resources_incomplete.rule,
    gpu107_gpu_parallelism_mismatch.rule,
    gpu210_gpu_unschedulable.rule,
    gpu211_gpu_capacity_short.rule,
    gpu301_gpu_image_pull_always.rule,
    gpu302_gpu_image_unpinned.rule,
    gpu701_nvidia_visible_devices_set.rule,
    gpu702_cuda_visible_devices_mismatch.rule,
    gpu703_gpu_privileged.rule,
    gpu704_gpu_device_hostpath.rule,
    gpu705_gpu_shm_missing.rule,
    gpu706_env_shell_variable.rule,
]
