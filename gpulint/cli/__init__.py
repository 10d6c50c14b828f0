"""The command line: the commands and their options (argparse); wiring only."""
