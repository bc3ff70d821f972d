"""Picks the Warp implementation for the examples: Weft's (``weft.warp``)
when it is installed, else NVIDIA Warp; ``USE_WARP=1`` forces NVIDIA Warp.
Under Weft, ``import warp`` elsewhere (e.g. ``examples/nbody.py``) is bound
to ``weft.warp`` too."""

import os
import sys


def warp():
    if os.environ.get("USE_WARP") != "1":
        try:
            import weft.warp as wp

            sys.modules["warp"] = wp
            return wp
        except ImportError:
            pass
    import warp as wp

    wp.config.quiet = True
    return wp
