"""Where each kind keeps its pod specs: the workload table and its CRD entries."""
