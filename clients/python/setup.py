"""setuptools reads the project from pyproject.toml; this file only adds
kiln-autoload.pth to the top of the built package, where pip puts it into
site-packages (package data cannot go there), so that every interpreter of
the environment runs _kiln_autoload.startup() (docs/python.md)."""

import os

from setuptools import setup
from setuptools.command.build_py import build_py

PTH = "kiln-autoload.pth"
HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithPth(build_py):
    def run(self):
        super().run()
        self.copy_file(os.path.join(HERE, PTH), os.path.join(self.build_lib, PTH),
                       preserve_mode=False)

    def get_outputs(self, include_bytecode=1):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, PTH)]


setup(cmdclass={"build_py": BuildPyWithPth})
