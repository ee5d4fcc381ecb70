"""Where backend work runs: a local pool of warm worker processes, or a Ray cluster."""
