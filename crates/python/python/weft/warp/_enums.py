"""Enumerations of Warp's for features Weft does not implement (textures,
JAX interop): the values exist, so code that names them imports and
compares as with Warp."""

import enum


class TextureAddressMode(enum.IntEnum):
    """How a texture is addressed outside [0, 1]."""

    WRAP = 0
    CLAMP = 1
    MIRROR = 2
    BORDER = 3


class TextureFilterMode(enum.IntEnum):
    """How a texture is sampled between texels."""

    CLOSEST = 0
    LINEAR = 1


class TextureResourceFlags(enum.IntFlag):
    """How a graphics resource is registered."""

    NONE = 0
    READ_ONLY = 1
    WRITE_DISCARD = 2
    SURFACE_LDST = 4
    TEXTURE_GATHER = 8


class JaxCallableGraphMode(enum.IntEnum):
    """How ``jax_callable`` captures CUDA graphs."""

    NONE = 0
    JAX = 1
    WARP = 2
    WARP_STAGED = 3
    WARP_STAGED_EX = 4


class JaxModulePreloadMode(enum.IntEnum):
    """Which devices ``jax_kernel`` loads its module on in advance."""

    NONE = 0
    CURRENT_DEVICE = 1
    ALL_DEVICES = 2
