"""What sits at a path in parsed YAML: mapping keys and list indexes, None where the path
leaves the data (the one lookup the model's readers share). ``INSIDE`` steps into the YAML a
string holds; a ``Layered`` step stands for a release's values merged from several places
(``yaml/layered.py``)."""

from __future__ import annotations

from typing import Any

from gpulint.yaml.embedded import INSIDE, mapping_in
from gpulint.yaml.layered import steps_in


def at_path(data: Any, path: tuple) -> Any:
    """What sits at ``path`` (mapping keys and, for lists, indexes; ``INSIDE`` steps into
    the YAML mapping a string holds), else None."""
    step = steps_in(path)
    if step is not None:  # the merged values stand for all that comes before them
        data, path = path[step].values, path[step + 1 :]
    for part in path:
        if part == INSIDE and isinstance(data, str):
            data = mapping_in(data)
        elif isinstance(data, dict):
            data = data.get(part)
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            return None
    return data
