"""``warp.build_experimental``: Weft's compiler has no extension API
(placeholders raising ``wp.NotSupportedError``)."""

from ._unsupported import install

install(globals(), "warp.build_experimental")
