# The sandbox copies src/ecot/domains/python/jobs/trace.py to ecot_trace.py; its types are those of the original.
from ecot.domains.python.jobs.trace import *
