"""ecot: execution-grounded reasoning data for industrial code."""

__version__ = "0.1.0"
