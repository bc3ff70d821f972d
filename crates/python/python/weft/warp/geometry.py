"""``warp.geometry`` on Weft: ``SweptVolumeSignMode``; the iso-surface,
Delaunay and swept-volume algorithms are not implemented (placeholders
raising ``wp.NotSupportedError``)."""

import enum

from ._unsupported import install


class SweptVolumeSignMode(enum.IntEnum):
    """How a swept volume's signed distance gets its sign."""

    NORMAL = 0
    WINDING_NUMBER = 1
    PARITY = 2
    NO_SIGN = 3


install(globals(), "warp.geometry")
