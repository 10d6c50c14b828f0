"""The TOML reader (containerd's ``config.toml``): a source -> its one document.

Parsing and positions are ``gpulint/yaml/toml_tree.py``'s; an invalid file is a
located input error, and the engine goes on with the other files.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.findings import InputError
from gpulint.inputs.sources import Source
from gpulint.yaml.parse import Document
from gpulint.yaml.toml_tree import load, node_tree

SUFFIX = ".toml"


def is_toml(source: Source) -> bool:
    return source.path.endswith(SUFFIX)


def documents(source: Source, errors: list[InputError]) -> Iterator[Document]:
    """The one document of a TOML source (none, and an error, when it is invalid)."""
    loaded = load(source.text)
    if isinstance(loaded, tuple):
        message, line, column = loaded
        errors.append(InputError(source.path, f"invalid TOML: {message}", line, column))
        return
    yield Document(source, 0, loaded, node_tree(source.text, loaded))
