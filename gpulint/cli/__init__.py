"""The command line: the commands and their options (click); wiring only."""
