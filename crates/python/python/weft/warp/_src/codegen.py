"""``warp._src.codegen``: Warp's code generator does not exist in Weft;
what its callers import from it (the compile error types) does."""

from ... import CompileError as WarpCodegenError

# Weft reports every compile error as one type (its message says which).
WarpCodegenValueError = WarpCodegenTypeError = WarpCodegenAttributeError = WarpCodegenKeyError = WarpCodegenError
WarpCodegenIndexError = WarpCodegenNameError = WarpCodegenError


def codegen_func_forward(*args, **kwargs):
    raise NotImplementedError("warp._src.codegen (Warp's C++ code generator) does not exist in Weft")
