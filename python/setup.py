# SPDX-License-Identifier: MIT
"""Build hook of the Python package (the metadata is in pyproject.toml):
with SHMTRACE_LIBDIR set at install time, the package installed names that
directory as where libshmtrace-reader is (shmtrace/_config.py), e.g.

    SHMTRACE_LIBDIR=$PWD/build/.libs python3 -m pip install --no-build-isolation ./python
"""
import os

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPy(build_py):
    def run(self):
        super().run()
        libdir = os.environ.get("SHMTRACE_LIBDIR")
        if not libdir:
            return
        with open(os.path.join(self.build_lib, "shmtrace", "_config.py"), "w") as f:
            f.write("# SPDX-License-Identifier: MIT\n"
                    "# Made at install time from SHMTRACE_LIBDIR.\n"
                    "LIBDIR = %r\n" % os.path.abspath(libdir))


setup(cmdclass={"build_py": BuildPy})
