"""How the reports say which findings were held back for want of cluster facts."""

from __future__ import annotations

from gpulint.core.findings import FACT_HELP, HeldBack

HOW = "--cluster nodes.yaml (kubectl get nodes -o yaml) or a cluster: section in .gpulint.yaml"


def _facts(held: list[HeldBack]) -> list[str]:
    return sorted({fact for h in held for fact in h.needs})


# Facts no config key or Node gives: only objects linted with the workloads establish them.
RUN_FACTS = {
    "nvidia-runtime": "lint the nodes' containerd config, GPU Operator values or RuntimeClass "
    "with the workloads",
}


def summary_line(held: list[HeldBack]) -> str:
    """One line for the end of the text report."""
    total = sum(h.count for h in held)
    codes = ", ".join(dict.fromkeys(h.code for h in held))
    facts = _facts(held)
    how = [f"give them with {HOW}"] if any(f not in RUN_FACTS for f in facts) else []
    how += [f"for {f}, {RUN_FACTS[f]}" for f in facts if f in RUN_FACTS]
    return (
        f"{total} finding(s) of {codes} held back for want of cluster facts "
        f"({', '.join(facts)}); {'; '.join(how)} (--verbose says more)"
    )


def detail_lines(held: list[HeldBack]) -> list[str]:
    """One line per rule and missing facts, then what each fact is (for --verbose)."""
    lines = [
        f"held back {h.count} {h.code} {h.name} finding(s): needs {', '.join(h.needs)}"
        for h in held
    ]
    lines += [f"{fact}: {FACT_HELP.get(fact, fact)}" for fact in _facts(held)]
    return lines


def as_dicts(held: list[HeldBack]) -> list[dict]:
    return [
        {"code": h.code, "name": h.name, "needs": list(h.needs), "count": h.count} for h in held
    ]
