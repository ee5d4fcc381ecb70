"""Audits a user runs on their own machine: `ecot audit SUITE` measures how strong each task's tests are
(the reference's runs, the mutation score, toolchain drift, the errata `ecot bench` reads); `ecot audit
hostile` measures, per domain, how many hostile candidates the sandbox and the backends contain on this
kernel, bubblewrap and toolchains."""
