"""The cross-domain hostile conformance suite: the attack classes and case format (framework.py), one
module of cases per domain (<domain>.py), the list of domains and known failures (suite.py), and the
runner that judges every case on the real backends (runner.py). `ecot audit hostile` and the test suite
(tests/conformance/hostile/test_hostile.py) run the same cases through the same runner."""
