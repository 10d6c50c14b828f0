"""The built-in rule pack: one module a rule (``gpuNNN_rule_name.py``).

Modules are discovered, not listed: every module here that defines a ``Rule``
is registered (:func:`gpulint.rules.registry.builtin_rules`).
"""
