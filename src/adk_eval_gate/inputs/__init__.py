"""discover -> load -> plan: eval files and datasets found, loaded with their criteria, and planned as work items."""
