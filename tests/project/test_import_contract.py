"""The import contract: the folders of ``gpulint/`` are the pipeline's layers.

Every module of ``gpulint/`` and of the built-in pack (``rules/``, imported as
``gpulint.rules.builtin``) is parsed with :mod:`ast`; nothing is imported. A module
may import its own folder and the folders below it, never one above; the folders,
top to bottom:

    cli         commands and options; the only home of click
    lsp         the language server (`gpulint lsp`, pygls): diagnostics, code actions, hover
    allocation  the GPU allocation report (`gpulint report`): cluster dumps in, text/JSON/HTML out
    report      reporters: a RunResult in, text out; they import core only
    fix         --fix: apply edits, re-lint, roll back
    engine      run the rules over the inputs, workers, where a fix may apply
    filter      suppressions, the baseline
    inputs      discover, read, render (the only home of subprocess), the preparation pass
    config      the config file, flags merged over it, exclude globs
    (the pack)  rules/: one module a rule (gpulint.rules.builtin)
    rules       the rule API, the registry, custom rules, shared facts, building fixes
    model       what the YAML means, by subject; its folders layered too (values, kinds,
                the object model, serving, workloads, gpu, scheduling, runtime, nvidia)
    catalog     GPU facts with their sources
    validate    the one JSON Schema layer
    yaml        parse, scalars, positions
    core        sources, settings, findings, records, output files

Besides: no two folders (at any depth) import each other, no import cycles between modules
(module-level, function-level and ``TYPE_CHECKING`` imports all count), and no
function-level imports except the measured lazy imports for start-up listed in
:data:`LAZY`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import ROOT

PACK = "gpulint.rules.builtin"

LAYERS: list[tuple[str, ...]] = [
    ("gpulint.__main__", "gpulint.cli"),
    ("gpulint.lsp",),
    ("gpulint.allocation",),
    ("gpulint.report",),
    ("gpulint.fix",),
    ("gpulint.engine",),
    ("gpulint.filter",),
    ("gpulint.inputs",),
    ("gpulint.config",),
    (PACK,),
    ("gpulint.rules",),
    ("gpulint.model",),
    ("gpulint.catalog",),
    ("gpulint.validate",),
    ("gpulint.yaml",),
    ("gpulint.core",),
    ("gpulint",),
]

# What the rule pack may import: the rule API and what a rule reasons over.
PACK_MAY_IMPORT = (
    "gpulint.rules.api",
    "gpulint.rules.facts",  # facts computed once and shared across rules
    "gpulint.rules.fixes.builders",  # a report's fix, built in one call
    "gpulint.rules.fixes.spec",
    PACK,
    "gpulint.model",
    "gpulint.yaml",
    "gpulint.catalog",
    "gpulint.validate",
    "gpulint.core.findings",
    "gpulint.core.settings",
    "gpulint",
)
REPORT_MAY_IMPORT = ("gpulint.report", "gpulint.core", "gpulint")
# Standard-library or third-party modules only one part of the tree may import.
CONFINED = {
    # the command line (the design card; issue 29 moved it back from argparse)
    "click": ("gpulint.cli",),
    "argparse": (),
    "subprocess": ("gpulint.inputs.render",),
    # the language server's libraries (the lsp extra)
    "pygls": ("gpulint.lsp",),
    "lsprotocol": ("gpulint.lsp",),
}

# Function-level imports kept on purpose: each defers a module a one-file run
# (`gpulint check one-file.yaml`, the pre-commit case) does not need. Figures: CPU time
# of the import in a process that has already imported what such a run imports
# (median of 7, this project's CI machine, a regular install).
LAZY: dict[tuple[str, str], str] = {
    # jsonschema (with referencing, rpds, attrs), only when the quick check cannot vouch.
    ("gpulint.validate.schema", "jsonschema.validators"): "jsonschema: ~68 ms",
    ("gpulint.validate.schema", "jsonschema.exceptions"): "jsonschema: ~68 ms",
    # The referencing registry of a custom rule's schema (validate/refs.py): part of
    # jsonschema's ~68 ms, only when a validator is built.
    ("gpulint.validate.refs", "referencing"): "with jsonschema: ~68 ms",
    ("gpulint.validate.refs", "referencing.exceptions"): "with jsonschema",
    ("gpulint.validate.refs", "referencing.jsonschema"): "with jsonschema",
    # A process pool only for large inputs.
    ("gpulint.engine.workers", "multiprocessing"): "multiprocessing + concurrent.futures: ~12 ms",
    ("gpulint.engine.workers", "concurrent.futures"): "multiprocessing + concurrent.futures",
    ("gpulint.engine.workers", "pickle"): "pickle: ~2 ms, only to test a spawn context",
    # Renderers (and subprocess) only when a chart or kustomization is read.
    ("gpulint.inputs.render.targets", "gpulint.inputs.render.helm"): "helm reader: ~14 ms",
    ("gpulint.inputs.render.targets", "gpulint.inputs.render.kustomize"): "kustomize: ~11 ms",
    # Reporters: only the format asked for; SARIF's sarif-om with attrs costs the most.
    ("gpulint.report", "gpulint.report.sarif"): "sarif_om + attrs: ~67 ms",
    ("gpulint.report", "gpulint.report.json"): "~0.4 ms; only the format asked for",
    ("gpulint.report", "gpulint.report.github"): "~0.3 ms; only the format asked for",
    ("gpulint.report", "gpulint.report.text"): "only the format asked for",
    ("gpulint.report", "gpulint.report.gitlab"): "only the format asked for",
    ("gpulint.report", "gpulint.report.junit"): "only the format asked for",
    ("gpulint.report", "gpulint.report.statistics"): "only with --statistics",
    ("gpulint.report.sarif", "urllib.parse"): "urllib.parse: ~3.5 ms, SARIF only",
    ("gpulint.core.findings", "hashlib"): "hashlib (OpenSSL): ~4 ms, only for fingerprints",
    # The fixer only with --fix or --diff, difflib only with --diff.
    (
        "gpulint.cli.fix_options",
        "gpulint.fix.fixer",
    ): "fixer, apply and difflib: ~1.9 ms, only with --fix or --diff",
    ("gpulint.cli.fix_options", "gpulint.fix.write"): "with the fixer (tempfile)",
    ("gpulint.cli.fix_options", "difflib"): "difflib: ~0.9 ms, only with --diff",
    # Plugin entry points: importlib.metadata only when an installed package declares one.
    ("gpulint.rules.registry", "importlib.metadata"): "importlib.metadata: ~19 ms (loaded machine)",
    # Start-up of the one-file run (issue 12, branch i12-startup): what only another path needs.
    ("gpulint.core.outputs", "tempfile"): "tempfile (random, hashlib): ~1.5 ms, --output only",
    # The code of `rules`, `explain` and `config-schema` only for those commands.
    ("gpulint.cli.main", "gpulint.cli.rule_commands"): "~1.5 ms, `rules`/`explain`/`config-schema`",
    ("gpulint.cli.rule_commands", "json"): "only for `gpulint rules --format json`",
    # The cluster inventory (model.placement, model.scheduler, model.inventory) only with
    # --cluster/--pods; the pack's cluster rules import them when Nodes are in the run.
    ("gpulint.validate.schema", "difflib"): "difflib (heapq): ~1 ms, only to suggest a name",
    ("gpulint.rules.fixes.builders", "difflib"): "difflib: only to suggest a name",
    (
        "gpulint.engine.run",
        "gpulint.engine.fix_details",
    ): "~5 ms: only when fixes' edits are wanted",
    ("gpulint.cli.main", "gpulint.inputs.cluster"): "~4 ms, only with --cluster/--pods",
    ("gpulint.cli.main", "gpulint.cli.report_command"): "the allocation report, `report` only",
    ("gpulint.cli.main", "gpulint.cli.lsp_command"): "the language server, `lsp` only",
    (
        "gpulint.cli.lsp_command",
        "gpulint.lsp.server",
    ): "pygls + lsprotocol (attrs, cattrs): `lsp` only",
    ("gpulint.engine.run", "gpulint.engine.describe"): "~0.9 ms, --verbose only",
    ("gpulint.model.values.quantity", "fractions"): "fractions + decimal: ~3.5 ms, only for "
    "a quantity that is not whole",
    ("gpulint.cli.entry", "gpulint.cli.main"): "the command line, imported with gc off: ~9 ms",
    ("gpulint.cli.completion", "click.shell_completion"): "only when a shell asks to complete",
    ("gpulint.cli.rule_commands", "shutil"): "shutil (bz2, lzma): ~2 ms, `rules` on a tty",
    ("gpulint.cli.rule_commands", "textwrap"): "textwrap: ~1 ms, `gpulint rules` only",
    ("gpulint.engine.workers", "signal"): "signal: ~0.9 ms, only when a pool starts",
    # The renderers' signal handling, only when a pool starts (multiprocessing has imported
    # subprocess, selectors and signal by then).
    ("gpulint.engine.workers", "gpulint.inputs.render.process"): "~1.4 ms, when a pool starts",
    ("gpulint.yaml.toml_tree", "tomllib"): "tomllib: ~2.4 ms, only when a .toml source is read",
    ("gpulint.yaml.toml_tree", "tomli"): "tomllib's backport (Python 3.10), as above",
    ("gpulint.config.file", "gpulint.rules.custom"): "~1.5 ms, only with custom-rules",
    ("gpulint.filter.suppress", "gpulint.filter.directives"): "~1 ms, only for `gpulint:` comments",
    # A pack rule's documentation is read from its module's source only when asked for.
    ("gpulint.rules.rule", "ast"): "ast: ~1.8 ms, explain, SARIF and rule pages only",
    # Tracebacks only with --debug.
    ("gpulint.engine.run", "traceback"): "traceback: ~0.9 ms",
    ("gpulint.cli.main", "traceback"): "traceback: ~0.9 ms",
    # What only a config file, a baseline, a folder walk or --verbose needs (issue 29's
    # last item, branch startup; figures of 2026-12-04 with the cost of a module's import
    # on that machine, ~0.25 ms, in each).
    ("gpulint.cli.adoption", "gpulint.config.loading"): "~0.2 ms, only with a config file",
    ("gpulint.config.file", "gpulint.validate.schema"): "the schema layer (quick, refs, "
    "schema): ~1.4 ms, only to validate a config file (or print its schema)",
    ("gpulint.config.file", "gpulint.validate.quick"): "with the schema layer, as above",
    ("gpulint.model.gpu.mig", "gpulint.validate.schema"): "the schema layer, only to suggest "
    "a MIG profile's name",
    ("gpulint.model.nvidia.operator", "gpulint.validate.schema"): "the schema layer, only for "
    "GPU Operator values",
    ("gpulint.cli.adoption", "gpulint.filter.baseline"): "~0.35 ms, --baseline or "
    "--write-baseline only",
    ("gpulint.filter.suppress", "gpulint.filter.baseline"): "~0.35 ms, --baseline only",
    ("gpulint.inputs.discover", "gpulint.inputs.ignore_files"): "~0.3 ms, a folder walk only",
    ("gpulint.engine.run", "gpulint.inputs.skip"): "~0.25 ms, a walked file that did not parse",
    ("gpulint.engine.run", "gpulint.model.workloads.unread"): "~0.3 ms, --verbose only",
    ("gpulint.inputs.profile_scan", "gpulint.model.scheduling.profile_facts"): "~1.2 ms "
    "(with scheduling.nodes), only for an input that may change the cluster profile",
    # The CRD kinds of the workload table (model/kinds/table.py): only for an object of a
    # group no built-in kind has.
    ("gpulint.model.kinds.table", "gpulint.model.kinds.crds"): "crds, assembled and kubeai "
    "with the ~90 records of their entries: ~2.2 ms",
    ("gpulint.model.kinds.table", "gpulint.model.kinds.assembled"): "with crds, as above",
    ("gpulint.model.kinds.table", "gpulint.model.kinds.kubeai"): "with crds, as above",
    ("gpulint.model.resource", "gpulint.model.kinds.kubeai"): "~0.25 ms, only for a "
    "document that is no object (a KubeAI values file)",
    ("gpulint.cli.adoption", "gpulint.config.globs"): "~0.35 ms, only with exclude patterns",
    ("gpulint.config.file", "gpulint.config.globs"): "with a config file's exclude patterns",
    ("gpulint.report.text", "gpulint.core.held"): "~0.25 ms, only when findings are held back",
    ("gpulint.engine.run", "gpulint.core.held"): "~0.25 ms, --verbose with findings held back",
}

# Once-temporary allowlists of the rule-API work (issue 12, branch i12-api): empty now that
# it has landed; kept so a new exception has one visible place (each entry is (importer,
# imported)).
TEMPORARY_FUNCTION_LEVEL: set[tuple[str, str]] = set()
TEMPORARY_LAYER: set[tuple[str, str]] = set()
TEMPORARY_PACK_IMPORTS: set[str] = set()


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str  # the module named (``from a.b import c`` -> a.b.c when that is a module)
    line: int
    in_function: bool
    type_only: bool  # under ``if TYPE_CHECKING:``


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for gpulint/ and the pack in rules/."""
    found: dict[str, Path] = {}
    for base in ("gpulint", "rules"):
        for path in sorted((root / base).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[0] == "rules":
                parts = PACK.split(".") + parts[1:]
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path, modules: Iterable[str]) -> Iterator[Import]:
    known = set(modules)
    is_package = path.name == "__init__.py"

    def resolve(node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        package = name.split(".") if is_package else name.split(".")[:-1]
        base = package[: len(package) - node.level + 1]
        return ".".join(base + ([node.module] if node.module else []))

    def visit(node: ast.AST, in_function: bool, type_only: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            guarded = type_only or (
                isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)
            )
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield Import(name, alias.name, child.lineno, nested, type_only)
            elif isinstance(child, ast.ImportFrom):
                module = resolve(child)
                for alias in child.names:
                    full = f"{module}.{alias.name}"
                    target = full if full in known else module
                    yield Import(name, target, child.lineno, nested, type_only)
            yield from visit(child, nested, guarded)

    yield from visit(ast.parse(path.read_text(encoding="utf-8")), False, False)


def all_imports(root: Path = ROOT) -> list[Import]:
    modules = module_files(root)
    return [i for name, path in modules.items() for i in imports_of(name, path, modules)]


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layer_of(module: str) -> int:
    """Index in LAYERS (0 = top) of the most specific prefix that holds ``module``."""
    best, best_len = len(LAYERS), -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if _within(module, prefix) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    return best


def internal(imports: Iterable[Import]) -> list[Import]:
    return [i for i in imports if _within(i.imported, "gpulint")]


def cycles(edges: Iterable[tuple[str, str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


@pytest.fixture(scope="module")
def imports() -> list[Import]:
    return all_imports()


def _where(i: Import) -> str:
    return f"{i.importer} (line {i.line}) imports {i.imported}"


def test_every_module_has_a_layer(imports: list[Import]) -> None:
    unplaced = sorted(m for m in module_files() if layer_of(m) == len(LAYERS))
    assert unplaced == [], f"modules in no layer of LAYERS: {unplaced}"


def test_no_import_reaches_a_layer_above(imports: list[Import]) -> None:
    upward = [
        _where(i)
        for i in internal(imports)
        if layer_of(i.imported) < layer_of(i.importer)
        and (i.importer, i.imported) not in TEMPORARY_LAYER
        and not (_within(i.importer, PACK) and i.imported in TEMPORARY_PACK_IMPORTS)
    ]
    assert upward == [], "imports that reach a layer above:\n" + "\n".join(upward)


def test_no_import_cycles(imports: list[Import]) -> None:
    edges = {(i.importer, i.imported) for i in internal(imports) if i.importer != i.imported}
    edges -= TEMPORARY_LAYER | TEMPORARY_FUNCTION_LEVEL
    edges = {(a, b) for a, b in edges if not (_within(a, PACK) and b in TEMPORARY_PACK_IMPORTS)}
    assert cycles(edges) == []


def folder_of(module: str, modules: dict[str, Path]) -> str:
    """The folder (package) a module's file is in, at any depth; the pack is one folder,
    and ``__main__`` belongs to the command line it starts."""
    if _within(module, PACK):
        return PACK
    if module == "gpulint.__main__":
        return "gpulint.cli"
    path = modules.get(module)
    if path is not None and path.name == "__init__.py":
        return module
    return module.rsplit(".", 1)[0]


def test_no_import_cycle_between_folders(imports: list[Import]) -> None:
    """Folders at every depth (``model/gpu/`` and ``model/scheduling/`` too): no two import
    each other, directly or round a loop."""
    modules = module_files()
    edges = {
        (folder_of(i.importer, modules), folder_of(i.imported, modules)) for i in internal(imports)
    }
    edges = {(a, b) for a, b in edges if a != b}
    assert cycles(edges) == [], "folders that import each other"


def test_no_function_level_imports_but_the_listed_lazy_ones(imports: list[Import]) -> None:
    allowed = set(LAZY) | TEMPORARY_FUNCTION_LEVEL
    nested = [
        _where(i) for i in imports if i.in_function and (i.importer, i.imported) not in allowed
    ]
    assert nested == [], (
        "function-level imports (import at the top of the module, or add a measured "
        "lazy import to LAZY):\n" + "\n".join(nested)
    )


def test_allowlists_hold_no_stale_entries(imports: list[Import]) -> None:
    """An entry that matches nothing any more must go, so the lists only shrink."""
    nested = {(i.importer, i.imported) for i in imports if i.in_function}
    every = {(i.importer, i.imported) for i in imports}
    stale = sorted((set(LAZY) | TEMPORARY_FUNCTION_LEVEL) - nested)
    stale += sorted(TEMPORARY_LAYER - every)
    pack_uses = {i.imported for i in imports if _within(i.importer, PACK)}
    stale += sorted(TEMPORARY_PACK_IMPORTS - pack_uses)
    assert stale == [], f"no longer needed: remove from this file's allowlists: {stale}"


def test_the_rule_pack_imports_the_rule_api_and_the_model_only(imports: list[Import]) -> None:
    wrong = [
        _where(i)
        for i in internal(imports)
        if _within(i.importer, PACK)
        and i.imported not in TEMPORARY_PACK_IMPORTS
        and not any(
            i.imported == p if p == "gpulint" else _within(i.imported, p) for p in PACK_MAY_IMPORT
        )
    ]
    assert wrong == [], "the rule pack imports internals:\n" + "\n".join(wrong)


def test_reporters_import_findings_only(imports: list[Import]) -> None:
    wrong = [
        _where(i)
        for i in internal(imports)
        if _within(i.importer, "gpulint.report")
        and not any(
            i.imported == p if p == "gpulint" else _within(i.imported, p) for p in REPORT_MAY_IMPORT
        )
    ]
    assert wrong == []


@pytest.mark.parametrize("confined", sorted(CONFINED))
def test_confined_modules_are_imported_in_their_home_only(
    imports: list[Import], confined: str
) -> None:
    homes = CONFINED[confined]
    wrong = [
        _where(i)
        for i in imports
        if _within(i.imported, confined) and not any(_within(i.importer, h) for h in homes)
    ]
    assert wrong == [], f"{confined} outside {homes}:\n" + "\n".join(wrong)


# --- the checker itself, on a small tree of its own -------------------------------------


def test_the_checker_finds_cycles_function_level_and_type_only_imports(tmp_path: Path) -> None:
    package = tmp_path / "gpulint"
    (package / "engine").mkdir(parents=True)
    (tmp_path / "rules").mkdir()
    (package / "__init__.py").write_text("")
    (package / "engine" / "__init__.py").write_text("")
    (package / "engine" / "run.py").write_text("from gpulint.core import findings\n")
    (package / "core").mkdir()
    (package / "core" / "__init__.py").write_text("")
    (package / "core" / "findings.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from gpulint.engine.run import x\n"
        "def f():\n"
        "    from .. import engine\n"
    )
    (tmp_path / "rules" / "gpu1.py").write_text("from gpulint.engine import run\n")
    found = {
        (i.importer, i.imported, i.line, i.in_function, i.type_only) for i in all_imports(tmp_path)
    }
    assert ("gpulint.core.findings", "gpulint.engine.run", 3, False, True) in found
    assert ("gpulint.core.findings", "gpulint.engine", 5, True, False) in found
    assert (f"{PACK}.gpu1", "gpulint.engine.run", 1, False, False) in found
    edges = {(a, b) for a, b, *_ in found}
    assert cycles(edges) == [["gpulint.core.findings", "gpulint.engine.run"]]
    assert layer_of(f"{PACK}.gpu1") < layer_of("gpulint.rules.registry")  # the pack is above
    assert layer_of("gpulint.config.file") > layer_of("gpulint.engine.run")  # config is below
    assert layer_of("gpulint.core.settings") > layer_of("gpulint.yaml.parse")
