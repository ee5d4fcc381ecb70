"""The gpu domain: its backend, helpers, mutators and bundled suite."""
