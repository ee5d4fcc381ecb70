"""The firmware domain: its backend, helpers, mutators and bundled suite."""
