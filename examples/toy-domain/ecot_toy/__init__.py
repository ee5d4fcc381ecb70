"""A toy ecot domain: shell scripts judged by what they print."""
