"""The built-in rule pack, from a source checkout.

The rule modules live in the top-level ``rules/`` folder. An installed gpulint
(wheel or editable) ships that folder as this package itself; from a plain
checkout (``PYTHONPATH=.``) this file is what Python finds, and it points the
package's search path at ``rules/`` so the same module names import.
"""

import os

_CHECKOUT_PACK = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir, "rules")
if os.path.isfile(os.path.join(_CHECKOUT_PACK, "__init__.py")):
    __path__.append(os.path.normpath(_CHECKOUT_PACK))  # noqa: F821 (a package's __path__)
