# The sandbox copies src/ecot/domains/python/jobs/child.py to ecot_child.py; its types are those of the original.
from ecot.domains.python.jobs.child import *
