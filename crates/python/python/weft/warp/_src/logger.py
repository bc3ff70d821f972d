"""``warp._src.logger``: Warp 1.19's pluggable logger (``wp.Logger``,
``wp.get_logger``, ``wp.set_logger``) and its level-gated helpers.

The default logger writes debug and info messages to stdout and errors to
stderr, and sends warnings through ``warnings.warn``, as Warp's does. Weft
itself logs nothing; what is logged is what the user asked for
(``wp.ScopedTimer``'s report)."""

from __future__ import annotations

import sys
import warnings
from typing import Protocol, runtime_checkable

LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERROR = 10, 20, 30, 40


@runtime_checkable
class Logger(Protocol):
    """What a Warp logger has: ``debug``, ``info``, ``warning`` and
    ``error`` methods (``wp.set_logger`` takes any such object)."""

    def debug(self, message: str) -> None: ...

    def info(self, message: str) -> None: ...

    def warning(self, message: str, category=None, stacklevel: int = 1) -> None: ...

    def error(self, message: str) -> None: ...


class LoggerBasic:
    """The default logger."""

    def debug(self, message):
        sys.stdout.write(f"{message}\n")

    def info(self, message):
        sys.stdout.write(f"{message}\n")

    def warning(self, message, category=None, stacklevel=1):
        # Python's warning filters decide; shown as Warp shows them.
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            warnings.warn(message, category, stacklevel=stacklevel + 1)

    def error(self, message):
        sys.stderr.write(f"Warp Error: {message}\n")


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """``Warp UserWarning: message`` on stderr (with the warning's place
    when ``wp.config.verbose_warnings``)."""
    from .. import context

    text = f"Warp {category.__name__}: {message}"
    if context.config.verbose_warnings:
        text += f" ({filename}:{lineno})"
    sys.stderr.write(text + "\n")


def _check(logger):
    if not isinstance(logger, Logger) or not all(
        callable(getattr(logger, m, None)) for m in ("debug", "info", "warning", "error")
    ):
        raise TypeError(
            "parameter 'logger' must have the methods debug(message), info(message), "
            f"warning(message, category, stacklevel) and error(message), got {type(logger).__name__}"
        )


_active_logger = LoggerBasic()
_warnings_seen = set()


def set_logger(logger) -> None:
    """Makes ``logger`` the active logger (None: the default one)."""
    global _active_logger
    if logger is None:
        _active_logger = LoggerBasic()
        return
    _check(logger)
    _active_logger = logger


def get_logger():
    """The active logger."""
    return _active_logger


def _level():
    from .. import context

    return context.config.log_level


def log_debug(message):
    if _level() <= LOG_DEBUG:
        _active_logger.debug(message)


def log_info(message):
    if _level() <= LOG_INFO:
        _active_logger.info(message)


def log_warning(message, category=None, stacklevel=1, once=False):
    """A warning at ``log_level`` warning or below; ``once`` (and
    deprecations) only the first time a message is seen."""
    if _level() > LOG_WARNING:
        return
    key = (category, message)
    dedup = once or category is DeprecationWarning
    if dedup and key in _warnings_seen:
        return
    _active_logger.warning(message, category=category, stacklevel=stacklevel + 2)
    if dedup:
        _warnings_seen.add(key)


def log_error(message):
    _active_logger.error(message)
