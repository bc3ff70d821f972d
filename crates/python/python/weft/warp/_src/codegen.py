"""``warp._src.codegen``: Warp's code generator does not exist in Weft;
what its callers import from it (the compile error types) does."""

from ... import CompileError as WarpCodegenError

# Weft reports every compile error as one type (its message says which).
WarpCodegenValueError = WarpCodegenTypeError = WarpCodegenAttributeError = WarpCodegenKeyError = WarpCodegenError
WarpCodegenIndexError = WarpCodegenNameError = WarpCodegenError


def codegen_func_forward(*args, **kwargs):
    raise NotImplementedError("warp._src.codegen (Warp's C++ code generator) does not exist in Weft")


class Var:
    """A value of Warp's code generator (its label, type, and constant
    value when known): the record Warp's builtin resolution functions
    take. Weft's compiler has its own; this one only carries the fields."""

    def __init__(self, label, type, requires_grad=False, constant=None, prefix=True, relative_lineno=None):
        self.label = label
        self.type = type
        self.requires_grad = requires_grad
        self.constant = constant
        self.prefix = prefix
        self.relative_lineno = relative_lineno

    def __repr__(self):
        return f"Var({self.label!r}, {getattr(self.type, '__name__', self.type)!r}, constant={self.constant!r})"
