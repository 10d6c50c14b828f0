"""The command line: click commands and their options; wiring only."""
