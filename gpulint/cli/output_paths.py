"""No output overwrites an input: every file a check writes against every file it reads.

``--output a.yaml a.yaml`` replaced the manifest being linted with the report. Before
anything is linted or written, each ``--output`` and ``--write-baseline`` file is compared
with each file the run reads: the files named, the files a folder walk found, what a
kustomization names and every file of a Helm chart, the config file, the baseline read,
``--values``, ``--chart-dir``, ``--cluster`` and ``--pods``. Existing files compare by
device and inode, so a symbolic or hard link to an input is that input; a file not yet
there by its real path, against the other outputs. ``--fix`` rewrites inputs on purpose and
is not an output here.

A device or FIFO output (``/dev/null``) or an open descriptor (``/dev/stdout``) is written
in place and is never an input (inputs are regular files), so it is left alone. Any other
symbolic link is refused: a scanned tree can hold ``gpulint.sarif -> ~/.bashrc`` (or a
link to nothing) where the CI job writes its report.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator

from gpulint.cli.option_groups import Options, UsageError
from gpulint.core.findings import printable
from gpulint.core.outputs import descriptor_link
from gpulint.core.record import record
from gpulint.core.settings import Settings
from gpulint.core.sources import read_bytes
from gpulint.inputs.discover import STDIN, Target, display_path
from gpulint.inputs.folders import kustomization_file
from gpulint.inputs.gitops_values import named_file_paths
from gpulint.inputs.kustomize_refs import members


@record(frozen=True)
class Read:
    """A path the run reads, and how it came to be read (for the message)."""

    path: str
    why: str
    whole: bool = False  # a folder every file of which may be read (a Helm chart)


@record(frozen=True)
class _Output:
    """One file a check writes, and what it is on disk."""

    path: str
    option: str
    key: tuple  # ("inode", dev, ino) of an existing file, ("path", realpath) of a new one
    real: str
    links: int  # hard links of an existing file; 0 for a new one
    planted: bool = False  # a symbolic link to a file, or to nothing: never written through


def refuse_overwrites(outputs: Iterable[tuple[str, str]], reads: Iterable[Read]) -> None:
    """(path, option) of each output; a UsageError when one is a folder, two are one file,
    or one is a file the run reads."""
    checked: list[_Output] = []
    for path, option in outputs:
        output = _output(path, option)
        if output is None:
            continue
        for other in checked:
            if other.key == output.key:
                raise UsageError(
                    f"{other.option} {printable(other.path)} and {option} {printable(path)} "
                    "are the same file; give each output its own file"
                )
        checked.append(output)
    if any(output.links for output in checked):  # a new file cannot be an input
        for read in _unique(reads):
            for output in checked:
                if _overwrites(output, read):
                    raise UsageError(_message(output, read))
    for output in checked:
        if output.planted:
            # A scanned tree can hold `gpulint.sarif -> ~/.bashrc` where CI writes its report.
            raise UsageError(
                f"{output.option} {printable(output.path)} is a symbolic link (to "
                f"{printable(output.real)}): gpulint writes no report through a link a "
                "scanned tree could have planted, only through /dev/stdout and other open "
                "descriptors; name the file itself"
            )


def _output(path: str, option: str) -> _Output | None:
    if path == "":
        raise UsageError(f"{option} '': an empty file name")
    if path.endswith(("/", os.sep)):
        raise UsageError(f"{option} {printable(path)} is a directory; give a file")
    real = os.path.realpath(path)
    planted = os.path.islink(path) and not descriptor_link(path)
    try:
        found = os.stat(path)
    except OSError:  # created by the write, or a dangling link
        return _Output(path, option, ("path", real), real, 0, planted)
    if stat.S_ISDIR(found.st_mode):
        raise UsageError(f"{option} {printable(path)} is a directory; give a file")
    if not stat.S_ISREG(found.st_mode) and not planted:
        return None  # a device or FIFO: written in place, never an input
    key = ("inode", found.st_dev, found.st_ino)
    return _Output(path, option, key, real, found.st_nlink, planted)


def _unique(reads: Iterable[Read]) -> Iterator[Read]:
    seen: set[tuple[str, bool]] = set()
    for read in reads:
        if read.path and read.path != STDIN and (read.path, read.whole) not in seen:
            seen.add((read.path, read.whole))
            yield read


def _overwrites(output: _Output, read: Read) -> bool:
    if output.links == 0:
        return False  # a file not yet there holds nothing to lose
    if read.whole:
        folder = os.path.realpath(read.path)
        if output.real.startswith(folder.rstrip(os.sep) + os.sep):
            return True
        return output.links > 1 and any(_same(output, p) for p in _files_under(read.path))
    return _same(output, read.path)


def _same(output: _Output, path: str) -> bool:
    try:
        found = os.stat(path)
    except OSError:
        return False
    return ("inode", found.st_dev, found.st_ino) == output.key


def _files_under(folder: str) -> Iterator[str]:
    for top, _dirs, files in os.walk(folder):
        for name in files:
            yield os.path.join(top, name)


def _message(output: _Output, read: Read) -> str:
    shown = printable(output.path)
    if read.whole or os.path.abspath(read.path) == os.path.abspath(output.path):
        what = f"is an input ({read.why})"
    else:  # a symbolic or hard link to it
        what = f"is the same file as the input {printable(read.path)} ({read.why})"
    hint = "; --exclude it, or write the report elsewhere" if read.why.startswith("found") else ""
    return f"{output.option} {shown} {what}: gpulint never writes over what it reads{hint}"


def refuse_overwriting_inputs(
    options: Options,
    settings: Settings,
    config_path: str | None,
    targets: list[Target],
    inventory: list[Target],
) -> None:
    """``gpulint check``'s outputs against what it reads (its targets, the ``--cluster``
    inventory, the config file and the other files its options name)."""
    outputs = [(path, "--output") for path in options.outputs or () if path != STDIN]
    if options.write_baseline is not None:
        outputs.append((options.write_baseline, "--write-baseline"))
    if not outputs:
        return  # nothing written but standard output: nothing to compare
    for path, option in outputs:
        _refuse_planted_folder(path, option, settings.linted_paths)
    refuse_overwrites(outputs, _reads(options, settings, config_path, targets, inventory))


def _refuse_planted_folder(path: str, option: str, linted: Iterable[str]) -> None:
    """A folder on the way to an output that is a symbolic link inside a linted folder:
    the tree could have planted ``reports -> ~/.ssh`` where the CI job writes
    ``reports/gpulint.sarif``. Links outside the linted folders (``/tmp`` on macOS) are
    the user's own and are followed."""
    roots = [os.path.abspath(p) for p in linted if p != STDIN and os.path.isdir(p)]
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        inside = any(folder.startswith(r.rstrip(os.sep) + os.sep) for r in roots)
        if inside and os.path.islink(folder):
            raise UsageError(
                f"{option} {printable(path)} goes through {printable(folder)}, a symbolic link "
                f"(to {printable(os.path.realpath(folder))}) inside a folder being linted: the "
                "tree could have planted it; name a path without it"
            )
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


def _reads(
    options: Options,
    settings: Settings,
    config_path: str | None,
    targets: list[Target],
    inventory: list[Target],
) -> Iterator[Read]:
    """Made only when an output exists already (a new file overwrites nothing): a
    kustomization's members are read from its file."""
    yield from _reads_of(targets, settings)
    yield from (Read(t.path, "a --cluster file") for t in inventory)
    if config_path:
        yield Read(config_path, "the config file")
    if settings.baseline_file:
        yield Read(settings.baseline_file, "the --baseline file")
    yield from (Read(path, "a --values file") for path in settings.render.values)
    if settings.render.chart_dir:
        yield Read(settings.render.chart_dir, "the --chart-dir chart", whole=True)
    if options.pods:
        yield Read(options.pods, "--pods", whole=os.path.isdir(options.pods))


def _reads_of(targets: Iterable[Target], settings: Settings) -> Iterator[Read]:
    """What linting ``targets`` reads: the files themselves, every file of a chart, what
    each kustomization names (files of its bases outside the tree included), and the values
    files a plain helmfile or kustomization's ``helmCharts`` names."""
    for target in targets:
        if target.kind == "helm":
            yield Read(target.path, "a Helm chart gpulint renders", whole=True)
        elif target.kind == "kustomize":
            yield from _kustomization(target.path)
        elif target.kind == "file":
            how = "found in a folder named on the command line" if target.walked else None
            yield Read(target.path, how or "named on the command line")
            yield from _values_files(target, settings)


def _values_files(target: Target, settings: Settings) -> Iterator[Read]:
    data = read_bytes(target.path)  # regular files only, size-capped
    if isinstance(data, bytes):
        for path in named_file_paths(target, data, settings):
            yield Read(display_path(path), f"a values file {printable(target.path)} names")


def _kustomization(folder: str) -> Iterator[Read]:
    found = members(folder)
    for base in {folder, *(naming for _field, naming in found.values())}:
        kfile = kustomization_file(base)
        if kfile is not None:
            yield Read(display_path(kfile), "a kustomization")
    for path, (field_name, naming) in found.items():
        yield Read(display_path(path), f"in {field_name} of {printable(display_path(naming))}")
