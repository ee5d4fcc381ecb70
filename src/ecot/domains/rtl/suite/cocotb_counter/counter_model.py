"""The reference model of `counter`, imported by the tests where they need it."""


def next_count(value: int, enable: bool, width: int) -> int:
    return (value + 1) % (1 << width) if enable else value
