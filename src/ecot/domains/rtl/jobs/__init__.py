"""Code that runs inside the sandbox, in jobs (standard library and the toolchain only)."""
