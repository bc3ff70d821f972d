"""A stand-in for ``warp.fem`` with its ``Sample`` struct (Warp's tests use
it as a struct defined in another module). Weft has no ``warp.fem``."""

import warp as wp


@wp.struct
class Sample:
    element_index: int
    element_coords: wp.vec3
    qp_index: int
    qp_weight: float
    test_dof: int
    trial_dof: int
