"""Console-script shim for the native ``offload-opt`` driver shipped in the package."""

import os
import sys
from pathlib import Path

DRIVER = Path(__file__).resolve().parent / "bin" / "offload-opt"


def main() -> None:
    """Replace this process with the native driver, passing the arguments through."""
    if not DRIVER.is_file():
        sys.stderr.write(
            f"offload-opt: the native driver is missing at {DRIVER}; reinstall hostoffload\n"
        )
        sys.exit(2)
    os.execv(DRIVER, [str(DRIVER), *sys.argv[1:]])
