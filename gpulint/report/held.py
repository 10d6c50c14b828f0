"""How the reports say which findings were held back for want of cluster facts."""

from __future__ import annotations

from gpulint.findings import FACT_HELP, HeldBack

HOW = "--cluster nodes.yaml (kubectl get nodes -o yaml) or a cluster: section in .gpulint.yaml"


def _facts(held: list[HeldBack]) -> list[str]:
    return sorted({fact for h in held for fact in h.needs})


def summary_line(held: list[HeldBack]) -> str:
    """One line for the end of the text report."""
    total = sum(h.count for h in held)
    codes = ", ".join(dict.fromkeys(h.code for h in held))
    return (
        f"{total} finding(s) of {codes} held back for want of cluster facts "
        f"({', '.join(_facts(held))}); give them with {HOW} (--verbose says more)"
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
