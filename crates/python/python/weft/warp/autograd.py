"""``warp.autograd``: gradient checks and Jacobians are not implemented in
Weft yet (placeholders raising ``wp.NotSupportedError``)."""

from ._unsupported import install

install(globals(), "warp.autograd")
