"""What every layer may use: sources, settings, findings, records, output files."""
