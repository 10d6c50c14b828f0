"""``gpulint lsp``: the Language Server Protocol server over standard input and output.

Wiring only: the server is gpulint/lsp/ (pygls), imported when this command runs, so
``gpulint check`` never pays for pygls; without the ``lsp`` extra it exits 2 and says how
to install it.
"""

from __future__ import annotations

import sys

import click

from gpulint.cli.option_groups import CONTEXT

EXIT_ERROR = 2
MISSING = "gpulint lsp needs the lsp extra: pip install 'gpulint[lsp]'"


@click.command(
    "lsp",
    context_settings=CONTEXT,
    short_help="Language server for editors (LSP over stdio).",
)
def lsp() -> None:
    """Run the Language Server Protocol server over standard input and output.

    Editors start it as `gpulint lsp`: diagnostics as you type, quick fixes, the rule's
    page on hover. Charts and kustomizations are rendered on save.
    """
    try:
        # Only for this command: pygls and lsprotocol (LAZY in the import contract).
        from gpulint.lsp import server
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in ("pygls", "lsprotocol"):
            raise
        sys.stderr.write(MISSING + "\n")
        sys.exit(EXIT_ERROR)
    server.serve()
