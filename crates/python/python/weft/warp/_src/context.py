"""``warp._src.context``: the module registry Warp's tests clear."""

user_modules = {}

import inspect
import sys


def _get_caller_module_name(stack_level=1):
    """The name of the module of the code ``stack_level`` frames above this
    function: the frame's ``__name__`` (what ``f.__module__`` of the
    functions defined there is, ``__main__`` under ``runpy`` too), else its
    ``__spec__``'s name, else the module ``inspect`` finds, else the loaded
    module of the frame's file."""
    frame = sys._getframe(stack_level)
    g = frame.f_globals
    name = g.get("__name__")
    if name:
        return name
    spec = g.get("__spec__")
    if spec is not None and getattr(spec, "name", None):
        return spec.name
    m = inspect.getmodule(frame)
    if m is not None:
        return m.__name__
    filename = frame.f_code.co_filename
    for mname, mod in list(sys.modules.items()):
        if getattr(mod, "__file__", None) == filename:
            return mname
    raise RuntimeError(
        f"Could not determine the calling module (frame of {filename!r}): pass the module to the function explicitly"
    )
