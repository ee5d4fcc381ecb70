# The sandbox copies src/ecot/domains/python/jobs/jail.py to ecot_jail.py; its types are those of the original.
from ecot.domains.python.jobs.jail import *
