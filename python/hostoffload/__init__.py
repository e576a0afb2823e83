"""Find, explain and fix XLA's host-offload output mismatch (E1200) in StableHLO.

The MLIR Python API with the host-offload passes registered lives in
:mod:`hostoffload.mlir`.
"""

from importlib.metadata import version as _version

__version__ = _version("hostoffload")

__all__ = ["__version__"]
