"""Warp's scoped helpers (``wp.ScopedTimer``, ``wp.ScopedMempool``, ...)
and activity timing (``wp.timing_begin``/``timing_end``) on Weft."""

from __future__ import annotations

import threading
import time

from . import _runtime
from . import context as _ctx
from ._src import logger as _logger
from ._unsupported import NotSupportedError

TIMING_KERNEL = 1
TIMING_KERNEL_BUILTIN = 2
TIMING_MEMCPY = 4
TIMING_MEMSET = 8
TIMING_GRAPH = 16
TIMING_ALL = 0xFFFFFFFF


class TimingResult:
    """One timed activity: its ``device``, ``name``, ``filter`` (a
    ``TIMING_*`` flag) and ``elapsed`` milliseconds."""

    def __init__(self, device, name, filter, elapsed):
        self.device, self.name, self.filter, self.elapsed = device, name, filter, elapsed

    def __repr__(self):
        return f"TimingResult({self.device}, {self.name!r}, {self.filter}, {self.elapsed})"


_timing = {"active": False}


def timing_begin(cuda_filter: int = TIMING_ALL, synchronize: bool = True) -> None:
    """Begins timing CUDA activity. Without a CUDA device there is none to
    time (``timing_end`` gives no results, as Warp's); Weft does not time
    the activity of its CUDA devices yet."""
    if _ctx.is_cuda_available():
        raise NotSupportedError("wp.timing_begin", "Weft does not time the activity of CUDA devices yet")
    if synchronize:
        _ctx.synchronize()
    _timing["active"] = True


def timing_end(synchronize: bool = True) -> list:
    """Ends timing: the activities recorded (a list of ``TimingResult``)."""
    if synchronize:
        _ctx.synchronize()
    _timing["active"] = False
    return []


def timing_print(results, indent: str = "") -> None:
    """Prints ``results`` (``TimingResult``s): each activity, then the
    totals per activity and per device."""
    if not results:
        print(f"{indent}No activity")
        return
    width = max(len("Activity"), *(len(r.name) for r in results))
    rule = f"{indent}{'-' * 16}+{'-' * 9}+{'-' * (width + 1)}"
    out = [f"{indent}Activity timeline:", rule, f"{indent}{'Time':<16}| {'Device':<8}| Activity", rule]
    per_name, per_device = {}, {}
    for r in results:
        dev = getattr(r.device, "alias", str(r.device))
        out.append(f"{indent}{r.elapsed:12.6f} ms | {dev:<7} | {r.name}")
        for table, key in ((per_name, r.name), (per_device, dev)):
            n, t = table.get(key, (0, 0.0))
            table[key] = (n + 1, t + r.elapsed)
    for title, table in (("Activity", per_name), ("Device", per_device)):
        out += ["", f"{indent}{title} totals:", rule, f"{indent}{'Total time':<16}| {'Count':<8}| {title}", rule]
        out += [f"{indent}{t:12.6f} ms | {n:7d} | {k}" for k, (n, t) in table.items()]
    print("\n".join(out))


class ScopedTimer:
    """Times the ``with`` block: ``elapsed`` (milliseconds) after it; with
    ``print`` (the default, as Warp) reports ``NAME took X ms`` through the
    active logger (``wp.get_logger()``: stdout by default, as Warp's);
    ``dict`` collects the times by name; ``synchronize`` waits for the
    devices at both ends; ``cuda_filter`` times CUDA activity
    (``wp.timing_begin``); ``detailed`` profiles with cProfile. ``active``
    False (or ``ScopedTimer.enabled`` False) times nothing."""

    _thread_local = threading.local()
    enabled = True

    def __init__(self, name, active=True, print=True, detailed=False, dict=None, use_nvtx=False, color="rapids",
                 synchronize=False, cuda_filter=0, report_func=None, skip_tape=False):
        self.name = name
        self.active = active and self.enabled
        self.print = print
        self.detailed = detailed
        self.dict = dict
        self.use_nvtx = use_nvtx
        self.color = color
        self.synchronize = synchronize
        self.cuda_filter = cuda_filter
        self.report_func = report_func or timing_print
        self.skip_tape = skip_tape
        self.elapsed = 0.0
        self.extra_msg = ""
        self.timing_results = []
        if dict is not None:
            dict.setdefault(name, [])

    def _depth(self, delta):
        tl = ScopedTimer._thread_local
        tl.indent = getattr(tl, "indent", -1) + delta
        return tl.indent

    def __enter__(self):
        if self.active:
            if self.use_nvtx:
                raise NotSupportedError("wp.ScopedTimer(use_nvtx=True)", "Weft does not emit NVTX ranges")
            if self.synchronize:
                _ctx.synchronize()
            if self.cuda_filter:
                timing_begin(self.cuda_filter, synchronize=not self.synchronize)
            if self.detailed:
                import cProfile

                self._profile = cProfile.Profile()
                self._profile.enable()
            if self.print:
                _logger.log_debug(f"{'    ' * self._depth(1)}{self.name} ...")
            self._start = time.perf_counter_ns()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.active:
            return False
        error = None
        if self.synchronize:
            try:
                _ctx.synchronize()
            except Exception as e:  # noqa: BLE001 (reported after the timer is closed)
                error = e
        self.elapsed = (time.perf_counter_ns() - self._start) / 1e6
        if self.detailed:
            self._profile.disable()
            self._profile.print_stats(sort="tottime")
        if self.cuda_filter:
            self.timing_results = timing_end(synchronize=not self.synchronize)
        if self.dict is not None:
            self.dict[self.name].append(self.elapsed)
        if self.print:
            indent = "    " * getattr(ScopedTimer._thread_local, "indent", 0)
            if self.timing_results:
                self.report_func(self.timing_results, indent=indent)
            extra = f" {self.extra_msg}" if self.extra_msg else ""
            _logger.get_logger().info(f"{indent}{self.name} took {self.elapsed:.2f} ms{extra}")
            self._depth(-1)
        if error is not None and exc_type is None:
            raise error
        return False


class ScopedStream:
    """Makes ``stream`` the current stream of its device in the block;
    ``None`` changes nothing (Weft has no CUDA streams, so no other
    stream exists)."""

    def __init__(self, stream, sync_enter=True, sync_exit=False):
        if stream is not None:
            raise NotSupportedError("wp.ScopedStream", _unsupported_streams())
        self.stream, self.sync_enter, self.sync_exit = stream, sync_enter, sync_exit

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False


def _unsupported_streams():
    from ._unsupported import STREAMS

    return STREAMS


class ScopedMempool:
    """Enables or disables ``device``'s memory pool in the block
    (``wp.set_mempool_enabled``: enabling fails on Weft's devices, as on
    Warp's devices without pools)."""

    def __init__(self, device, enable):
        self.device = _ctx.get_device(device)
        self.enable = enable

    def __enter__(self):
        self.saved_setting = _runtime.is_mempool_enabled(self.device)
        _runtime.set_mempool_enabled(self.device, self.enable)

    def __exit__(self, *exc):
        _runtime.set_mempool_enabled(self.device, self.saved_setting)
        return False


class ScopedMempoolAccess:
    """Enables or disables ``peer_device``'s access to ``target_device``'s
    memory pool in the block."""

    def __init__(self, target_device, peer_device, enable):
        self.target_device, self.peer_device, self.enable = target_device, peer_device, enable

    def __enter__(self):
        self.saved_setting = _runtime.is_mempool_access_enabled(self.target_device, self.peer_device)
        _runtime.set_mempool_access_enabled(self.target_device, self.peer_device, self.enable)

    def __exit__(self, *exc):
        _runtime.set_mempool_access_enabled(self.target_device, self.peer_device, self.saved_setting)
        return False


class ScopedPeerAccess:
    """Enables or disables ``peer_device``'s access to ``target_device``'s
    memory in the block."""

    def __init__(self, target_device, peer_device, enable):
        self.target_device, self.peer_device, self.enable = target_device, peer_device, enable

    def __enter__(self):
        self.saved_setting = _runtime.is_peer_access_enabled(self.target_device, self.peer_device)
        _runtime.set_peer_access_enabled(self.target_device, self.peer_device, self.enable)

    def __exit__(self, *exc):
        _runtime.set_peer_access_enabled(self.target_device, self.peer_device, self.saved_setting)
        return False


class ScopedCudaProfiler:
    """``wp.cuda_profiler_start``/``stop`` around the block (no-ops on a
    CPU device)."""

    def __init__(self, device=None):
        self.device = _ctx.get_device(device)

    def __enter__(self):
        _runtime.cuda_profiler_start(self.device)
        return self

    def __exit__(self, exc_type, *exc):
        try:
            _runtime.cuda_profiler_stop(self.device)
        except Exception:
            if exc_type is None:
                raise
        return False


class ScopedLogger:
    """Makes ``logger`` (None: the default one) the active logger in the block."""

    def __init__(self, logger):
        if logger is not None:
            _logger._check(logger)
        self.logger = logger

    def __enter__(self):
        self.saved = _logger.get_logger()
        _logger.set_logger(self.logger)
        return self

    def __exit__(self, *exc):
        _logger._active_logger = self.saved
        return False


class ScopedLogLevel:
    """Sets ``wp.config.log_level`` in the block."""

    def __init__(self, log_level):
        self.log_level = log_level

    def __enter__(self):
        self.saved = _ctx.config.log_level
        _ctx.config.log_level = self.log_level
        return self

    def __exit__(self, *exc):
        _ctx.config.log_level = self.saved
        return False


def transform_expand(t):
    """The transform of a flat sequence of 7 numbers (position, then
    quaternion x, y, z, w)."""
    from . import types as _t

    if len(t) < 7:
        raise ValueError(f"transform_expand: parameter 't' needs 7 numbers, got {len(t)}")
    return _t.transform(list(t[0:3]), list(t[3:7]))
