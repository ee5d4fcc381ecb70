"""The rtl domain: its backend, helpers, mutators and bundled suite."""
