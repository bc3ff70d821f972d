"""``warp.sparse`` on Weft: its status constants; block sparse matrices
are not implemented (the names are placeholders raising
``wp.NotSupportedError`` when used)."""

from ._unsupported import install

BSR_STATUS_SUCCESS = 0
BSR_STATUS_ROW_CAPACITY_EXCEEDED = 1

install(globals(), "warp.sparse")
