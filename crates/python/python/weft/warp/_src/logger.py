"""``warp._src.logger``: the set of warnings already shown."""

_warnings_seen = set()
