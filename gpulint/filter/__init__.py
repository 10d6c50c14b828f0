"""What happens to findings after the rules: suppressions, baseline, exemptions."""
