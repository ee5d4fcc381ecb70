"""The asm domain: its backend, helpers, mutators and bundled suite."""
