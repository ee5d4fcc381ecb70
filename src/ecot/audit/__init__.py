"""Audits a user runs on their own machine: `ecot audit hostile` measures, per domain, how many hostile
candidates the sandbox and the backends contain on this kernel, bubblewrap and toolchains."""
