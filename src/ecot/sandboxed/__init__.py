"""Trusted code that runs inside the sandbox (standard library only): the supervisor that runs tool jobs,
the warm interpreter that forks Python jobs, and the private work dirs both give their jobs."""
