"""``warp._src.builtins``: Warp's builtin registry, which Weft's compiler
replaces with its own table (``weft/warp/_builtins.json``). What Warp's
tests import of it exists; the tile builtins' resolution functions raise
``NotSupportedError`` (Weft has no tiles)."""

from .._unsupported import TILES, NotSupportedError


def _tile_resolver(name):
    def resolve(*args, **kwargs):
        raise NotSupportedError(f"warp._src.builtins.{name}", TILES)

    resolve.__name__ = resolve.__qualname__ = name
    return resolve


tile_full_value_func = _tile_resolver("tile_full_value_func")
tile_randf_dispatch_func = _tile_resolver("tile_randf_dispatch_func")
tile_randi_dispatch_func = _tile_resolver("tile_randi_dispatch_func")
