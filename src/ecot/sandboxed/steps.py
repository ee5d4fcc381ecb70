"""Whether a step of a sandbox request may run, decided in the supervisor as the step comes up (standard
library only: this runs inside the sandbox): its gate, a line the step before must have printed, and its
fresh files, which must be written as it starts."""

from __future__ import annotations

import base64
import os
import re
from typing import Any


def reported(result: dict[str, Any], tag: str, pattern: str) -> bool:
    """Whether a job printed a line holding the secret tag whose text after the tag matches pattern (a
    testbench's own pass line: text without the tag, whatever prints it, does not count). The host reads
    the lines the same way (ecot.domains.rtl.logs.trusted_lines), which this standard-library side cannot import."""
    for stream in ("stdout", "stderr"):
        for line in base64.b64decode(result[stream]).decode("utf-8", "replace").splitlines():
            if tag in line and re.search(pattern, "".join(line.split(tag)[1:]).strip()):
                return True
    return False


def wrote_fresh(job: dict[str, Any]) -> bool:
    """Write the job's fresh files as it starts: new regular files, never where a name is taken (by an
    earlier job of the request, which could only have guessed it) and never through a link. False when one
    cannot be written: the job is then not run, and never on what an earlier job left."""
    for name, data in (job.get("fresh") or {}).items():
        try:
            fd = os.open(os.path.join(job["cwd"], name), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "wb") as handle:
                handle.write(base64.b64decode(data))
        except OSError:
            return False
    return True
