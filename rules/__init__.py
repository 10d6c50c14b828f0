"""The built-in rule pack: one module a rule, listed here explicitly."""

from gpulint.rules import (
    gpu101_gpu_limit_missing,
    gpu102_gpu_request_limit_mismatch,
    gpu103_gpu_quantity_invalid,
)

from gpulint.registry import Rule

RULES: list[Rule] = [
    gpu101_gpu_limit_missing.rule,
    gpu102_gpu_request_limit_mismatch.rule,
    gpu103_gpu_quantity_invalid.rule,
]
