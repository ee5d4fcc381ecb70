# The sandbox copies src/ecot/domains/python/jobs/values.py to ecot_values.py; its types are those of the original.
from ecot.domains.python.jobs.values import *
