"""``warp.optim`` on Weft: the optimizers and linear solvers are not
implemented yet (placeholders raising ``wp.NotSupportedError``)."""

from .._unsupported import install
from . import linear  # noqa: F401

install(globals(), "warp.optim")
