"""The python domain: its backend, helpers, mutators and bundled suite."""
