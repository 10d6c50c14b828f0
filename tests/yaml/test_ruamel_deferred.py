"""gpulint.yaml defers ruamel.yaml's package ``__init__`` (start-up); nothing else changes."""

from __future__ import annotations

import subprocess
import sys

_CODE = """
import sys
import gpulint.yaml.parse
print("main" if "ruamel.yaml.main" in sys.modules else "deferred")
{then}
"""


def _run(then: str) -> list[str]:
    code = _CODE.format(then=then)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_parsing_does_not_import_ruamels_front_end():
    assert _run("") == ["deferred"]


def test_ruamel_yaml_works_as_usual_after_gpulint():
    then = (
        "from ruamel.yaml import YAML\n"
        "import io, ruamel.yaml\n"
        "data = YAML(typ='rt').load('a: 1')\n"
        "out = io.StringIO(); YAML().dump(data, out)\n"
        "print(out.getvalue().strip().replace(' ', ''), ruamel.yaml.__version__ > '0')"
    )
    assert _run(then) == ["deferred", "a:1", "True"]


def test_a_missing_attribute_is_still_an_attribute_error():
    then = (
        "import ruamel.yaml\n"
        "try:\n    ruamel.yaml.no_such_name\n"
        "except AttributeError:\n    print('AttributeError')"
    )
    assert _run(then) == ["deferred", "AttributeError"]


def test_a_ruamel_imported_first_is_left_alone():
    code = (
        "import ruamel.yaml, gpulint.yaml.parse, sys\n"
        "print(type(sys.modules['ruamel.yaml']).__name__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "module"
