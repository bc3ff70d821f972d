"""``warp.fem`` on Weft: its index and coordinate types, constants and
``Sample`` structs are real (Warp's tests use ``Sample`` as a struct
defined in another module); the finite-element machinery (geometries,
spaces, fields, integrands, ``integrate``) is not implemented: those names
are placeholders raising ``wp.NotSupportedError`` when used."""

import enum

import weft.warp as wp

from .._unsupported import FEM, NotSupportedError, install, placeholder_module
from . import linalg, utils  # noqa: F401

# Index types (Python ints in Warp), coordinates, sentinels.
ElementIndex = NodeIndex = QuadraturePointIndex = int
Coords = wp.vec3
Coords_f64 = wp.vec3d
NULL_ELEMENT_INDEX = -1
NULL_QP_INDEX = -1
NULL_NODE_INDEX = (1 << 31) - 1
OUTSIDE = -1.0e8


class ElementKind(enum.IntEnum):
    """Cells or sides of a geometry."""

    CELL = 0
    SIDE = 1


class Polynomial(enum.Enum):
    """Families of interpolation points of polynomial function spaces."""

    GAUSS_LEGENDRE = "GL"
    LOBATTO_GAUSS_LEGENDRE = "LGL"
    EQUISPACED_CLOSED = "closed"
    EQUISPACED_OPEN = "open"


@wp.struct
class Sample:
    element_index: int
    element_coords: wp.vec3
    qp_index: int
    qp_weight: float
    test_dof: int
    trial_dof: int


@wp.struct
class Sample_f64:
    element_index: int
    element_coords: wp.vec3d
    qp_index: int
    qp_weight: wp.float64
    test_dof: int
    trial_dof: int


# Warp's fem submodules that Weft does not have: placeholder modules.
cache, field, geometry, polynomial, space = (
    placeholder_module(f"{__name__}.{m}", f"wp.fem.{m}", FEM) for m in ("cache", "field", "geometry", "polynomial", "space")
)

class Integrand:
    """A function decorated with ``@fem.integrand``. Weft has no
    finite-element machinery to run it with: defining one works (modules
    declaring integrands import), using one raises ``NotSupportedError``."""

    def __init__(self, func, raw_arg_types=None):
        self.func = func
        self.name = getattr(func, "__qualname__", getattr(func, "__name__", "integrand"))
        self.module = getattr(func, "__module__", None)
        self.argspec = None

    def __call__(self, *args, **kwargs):
        raise NotSupportedError("wp.fem.integrand", FEM)


def integrand(func=None, raw_arg_types=None, **kwargs):
    """``@fem.integrand`` (also with arguments): wraps ``func`` in an
    ``Integrand``, which raises ``NotSupportedError`` when used."""
    if func is None:
        return lambda f: Integrand(f, raw_arg_types)
    return Integrand(func, raw_arg_types)


install(globals(), "warp.fem")
