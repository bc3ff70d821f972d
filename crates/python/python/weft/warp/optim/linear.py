"""``warp.optim.linear``: not implemented in Weft yet (placeholders)."""

from .._unsupported import install

install(globals(), "warp.optim.linear")
