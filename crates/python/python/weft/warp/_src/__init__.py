"""The few internals of Warp (``warp._src``) that Warp's test files touch."""

from .. import types  # noqa: F401 (warp._src.types is warp.types here)
from . import autograd, build, builtins, codegen, context, logger  # noqa: F401
