"""Where a GPU pod can land: requirements, the scheduler's filters, Nodes, the cluster profile."""
