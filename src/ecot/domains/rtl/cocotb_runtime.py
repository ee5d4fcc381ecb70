"""What a sandboxed vvp needs to run cocotb tests: cocotb's VPI library, a Python it can embed, and the
folders to show it read-only.

cocotb (2.x, from PyPI) ships `libcocotbvpi_icarus.so`, which vvp loads with `-m`; that library loads
libpython and cocotb's `simulator` extension (GPI_USERS) and calls the Python entry points named in
PYGPI_USERS. The Python is ours when the sandbox's user can reach it, else the system Python of the same
version reading our site-packages (`sandbox.warm.sandbox_python`, as for the warm interpreters); its
libpython is the one that Python was built with. Found once per process.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ecot.core.errors import ToolMissingError
from ecot.domains.rtl.jobs import cocotb_report
from ecot.sandbox.isolation import sandbox_uid
from ecot.sandbox.warm import sandbox_python

INSTALL_HINT = "pip install 'cocotb>=2.1,<3' (`make setup` installs it)"
LIBPYTHON_HINT = "the shared libpython of the sandbox's Python; on Debian: apt-get install libpython3.11"
JOBS = str(Path(cocotb_report.__file__).resolve().parent)
# cocotb's own start-up entry points, with our reporter in place of cocotb.regression:_run_regression
REPORTER = f"{cocotb_report.__name__.rsplit('.', 1)[-1]}:{cocotb_report.run.__name__}"  # imported from JOBS on PYTHONPATH
ENTRY_POINTS = ("cocotb.logging:_configure", "cocotb._init:init_package_from_simulation", REPORTER)


@dataclass(frozen=True)
class CocotbRuntime:
    version: str
    vpi_library: str  # vvp -m <this>
    python: str  # PYGPI_PYTHON_BIN: the interpreter whose prefix the embedded Python takes
    libpython: str
    pygpi_entry: str  # cocotb's simulator extension and its entry function, "path,function"
    mounts: tuple[str, ...]  # read-only inside the sandbox
    site_dirs: tuple[str, ...]  # where the embedded Python finds cocotb (after our reporter and the tests)

    def environment(self, tests: str, modules: tuple[str, ...], top: str) -> dict[str, str]:
        """The environment of one vvp run: `tests` is the folder holding the test modules (relative to
        the work folder, which is vvp's current folder)."""
        return {
            "COCOTB_TOPLEVEL": top,
            "TOPLEVEL_LANG": "verilog",
            "COCOTB_TEST_MODULES": ",".join(modules),
            "PYGPI_PYTHON_BIN": self.python,
            "GPI_USERS": f"{self.libpython};{self.pygpi_entry}",
            "PYGPI_USERS": ",".join(ENTRY_POINTS),
            "PYTHONPATH": os.pathsep.join((JOBS, tests, *self.site_dirs)),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONNOUSERSITE": "1",
            "COCOTB_RESULTS_FILE": "/dev/null",  # cocotb's results.xml decides nothing; nothing is kept
            "COCOTB_ANSI_OUTPUT": "0",
            "GPI_LOG_LEVEL": "WARNING",
        }


@functools.cache
def runtime() -> CocotbRuntime:
    """cocotb as installed beside ecot; ToolMissingError when it (or a usable libpython) is missing."""
    try:
        import cocotb
        import cocotb_tools.config as config
    except ImportError:
        raise ToolMissingError("cocotb", INSTALL_HINT) from None
    if not cocotb.__version__.startswith("2."):
        raise ToolMissingError("cocotb 2.x", f"found cocotb {cocotb.__version__}; {INSTALL_HINT}")
    python, mounts, sites = sandbox_python(sandbox_uid())
    site_packages = str(Path(cocotb.__file__).resolve().parents[1])
    return CocotbRuntime(
        version=cocotb.__version__,
        vpi_library=config.lib_entry("vpi", "icarus"),
        python=python,
        libpython=_libpython(python),
        pygpi_entry=config.pygpi_entry_point(),
        mounts=tuple(dict.fromkeys([*mounts, site_packages, JOBS])),
        site_dirs=tuple(dict.fromkeys([*sites, site_packages])),
    )


def _libpython(python: str) -> str:
    """The shared libpython `python` was built with (LIBDIR/INSTSONAME), or ToolMissingError."""
    if python == sys.executable:
        import sysconfig

        libdir, name = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("INSTSONAME")
    else:
        probe = "import sysconfig as s; print(s.get_config_var('LIBDIR')); print(s.get_config_var('INSTSONAME'))"
        out = subprocess.run([python, "-I", "-c", probe], capture_output=True, text=True, timeout=30).stdout.split()
        libdir, name = (out + ["", ""])[:2]
    path = os.path.join(str(libdir), str(name))
    if not str(name).startswith("libpython") or ".so" not in str(name) or not os.path.isfile(path):
        raise ToolMissingError(f"libpython ({path or python})", LIBPYTHON_HINT)
    return path
