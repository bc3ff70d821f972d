"""``warp.fem.linalg``: not implemented in Weft (placeholders)."""

from .._unsupported import install

install(globals(), "warp.fem.linalg")
