# The sandbox copies src/ecot/domains/python/jobs/check.py to ecot_check.py; its types are those of the original.
from ecot.domains.python.jobs.check import *
