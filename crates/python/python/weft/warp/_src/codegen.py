"""``warp._src.codegen``: Warp's code generator does not exist in Weft."""


def codegen_func_forward(*args, **kwargs):
    raise NotImplementedError("warp._src.codegen (Warp's C++ code generator) does not exist in Weft")
