# The sandbox copies src/ecot/domains/python/jobs/checkfile.py to ecot_checkfile.py; its types are those of the original.
from ecot.domains.python.jobs.checkfile import *
