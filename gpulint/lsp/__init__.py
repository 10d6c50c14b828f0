"""``gpulint lsp``: the Language Server Protocol server (pygls), above the pipeline.

Imported only by ``gpulint lsp`` (gpulint/cli/lsp_command.py), so ``gpulint check``
never loads pygls or lsprotocol.
"""
