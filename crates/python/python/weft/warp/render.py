"""``warp.render``: Warp's OpenGL and USD renderers are not implemented in
Weft (placeholders raising ``wp.NotSupportedError``)."""

from ._unsupported import install

install(globals(), "warp.render")
