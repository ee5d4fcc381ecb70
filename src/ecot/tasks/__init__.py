"""Task suites: loading and validating them, replay suites."""
