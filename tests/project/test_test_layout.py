"""The layout of tests/, checked over the source like the import contract checks gpulint/.

- Test modules share code through ``tests/helpers.py`` and the support modules
  (``tests/kube_valid.py``, ``tests/helm_binary.py``) and fixtures through ``conftest.py``
  (pytest supplies them): no test module imports ``conftest`` or another test module, at
  any level (module, function, ``TYPE_CHECKING``), absolutely or relatively.
- Test modules live in a folder by subject: ``tests/rules/gpuNxx/`` for the rules of a
  series, a pipeline stage's folder otherwise (``tests/inputs/``, ``tests/report/`` ...);
  every folder is a package, so two folders may hold files of the same name.
- A test named for a rule (``test_gpu204_...``) lives in that rule's series folder, except
  the fixer's tests of each rule's fix (``tests/fix/``, one helper for all of them).
- Every series of the built-in pack has its folder, and the end-to-end tests
  (``tests/e2e/``) are all marked ``slow``.

The parsing is :mod:`ast` only; nothing here is imported.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from tests.helpers import ROOT

TESTS = ROOT / "tests"
# Modules of tests/ that hold no tests: any test module may import these.
SUPPORT = {"tests.helpers", "tests.kube_valid", "tests.helm_binary"}
RULE_TEST = re.compile(r"test_gpu(\d)\d\d_")
# Where a test named for a rule may live besides its series folder.
RULE_TESTS_ELSEWHERE = ("fix",)


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _python_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "data" not in p.relative_to(TESTS).parts)


def _test_modules() -> list[Path]:
    return [p for p in _python_files() if p.name.startswith("test_")]


def _imported(path: Path) -> Iterator[tuple[int, str]]:
    """(line, module) of every import in ``path``, relative ones resolved; ``from a import b``
    yields both ``a`` and ``a.b`` (b may be a module)."""
    package = _module(path).rsplit(".", 1)[0].split(".")
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package[: len(package) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            yield node.lineno, base
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def _is_test_module(module: str) -> bool:
    parts = module.split(".")
    return parts[0] == "tests" and (parts[-1] == "conftest" or parts[-1].startswith("test_"))


def test_no_test_module_imports_conftest_or_another_test_module():
    crossings = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in _python_files()
        if path.name != "conftest.py"
        for line, module in _imported(path)
        if _is_test_module(module)
    ]
    assert crossings == [], "import from tests/helpers.py (or a fixture of conftest.py) instead"


def test_support_modules_import_no_test_module():
    for module in SUPPORT:
        path = ROOT / (module.replace(".", "/") + ".py")
        assert path.is_file(), module
        assert not [m for _, m in _imported(path) if _is_test_module(m)], module


def test_test_modules_live_in_a_subject_folder_and_every_folder_is_a_package():
    top = [p.name for p in _test_modules() if p.parent == TESTS]
    assert top == [], "put each test module in its series or stage folder (docs/development.md)"
    folders = {p.parent for p in _python_files()}
    assert (
        sorted(str(f.relative_to(ROOT)) for f in folders if not (f / "__init__.py").is_file()) == []
    )


def test_a_test_named_for_a_rule_lives_in_its_series_folder():
    misplaced = []
    for path in _test_modules():
        folder = path.parent.relative_to(TESTS).parts
        for node in ast.parse(path.read_text()).body:
            match = isinstance(node, ast.FunctionDef) and RULE_TEST.match(node.name)
            if not match or folder[:1] in [(f,) for f in RULE_TESTS_ELSEWHERE]:
                continue
            if folder != ("rules", f"gpu{match.group(1)}xx"):
                misplaced.append(f"{path.relative_to(ROOT)}::{node.name}")
    assert misplaced == []


def test_every_series_of_the_pack_has_its_test_folder():
    series = {
        m.group(1) for p in (ROOT / "rules").glob("gpu*.py") if (m := re.match(r"gpu(\d)", p.name))
    }
    assert series, "no rule modules found"
    missing = [s for s in sorted(series) if not (TESTS / "rules" / f"gpu{s}xx").is_dir()]
    assert missing == []


def test_the_end_to_end_tests_are_marked_slow():
    unmarked = []
    for path in sorted((TESTS / "e2e").glob("test_*.py")):
        marks = [
            ast.unparse(node.value)
            for node in ast.parse(path.read_text()).body
            if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets)
        ]
        if not any("pytest.mark.slow" in mark for mark in marks):
            unmarked.append(path.name)
    assert unmarked == []
