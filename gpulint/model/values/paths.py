"""What sits at a path in parsed YAML: mapping keys and list indexes, None where the path
leaves the data (the one lookup the model's readers share). ``INSIDE`` steps into the YAML a
string holds; a ``Layered`` step stands for a release's values merged from several places
(``yaml/layered.py``)."""

from __future__ import annotations

from typing import Any

from gpulint.yaml.embedded import INSIDE, mapping_in
from gpulint.yaml.layered import Layered


def at_path(data: Any, path: tuple) -> Any:
    """What sits at ``path`` (mapping keys and, for lists, indexes; ``INSIDE`` steps into
    the YAML mapping a string holds), else None."""
    for part in path:
        if type(part) is Layered:
            data = part.values
        elif part == INSIDE and isinstance(data, str):
            data = mapping_in(data)
        elif isinstance(data, dict):
            data = data.get(part)
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            return None
    return data
