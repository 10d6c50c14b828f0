"""Where each kind keeps its pod specs, and what operators add to them."""
