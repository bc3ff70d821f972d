"""The few internals of Warp (``warp._src``) that Warp's test files touch."""

from . import logger  # noqa: F401
