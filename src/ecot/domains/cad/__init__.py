"""The cad domain: its backend, helpers, mutators and bundled suite."""
