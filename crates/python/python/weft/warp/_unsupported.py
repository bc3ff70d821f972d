"""Names of Warp 1.19 that Weft has, but does not implement (yet).

Each such name exists (as a function, or a class where Warp's is a class)
so that ``wp.NAME`` and ``from warp import NAME`` work; calling it,
instantiating it or subscripting it raises ``NotSupportedError``, whose
message names it and says why. Nothing is raised at import or attribute
access.

The placeholders are made from one table per module (``TABLE``: Warp's
module name → ``(reason, names)`` groups); ``install`` puts them into a
module's namespace. The builtins of Warp's kernel language that Weft does
not run at Python scope yet are the names of ``_warp_names.json``'s
``builtins`` that a module does not define itself (``install_builtins``).
"""

from __future__ import annotations

import json
import os
import sys
import types as _types


class NotSupportedError(NotImplementedError):
    """A Warp name Weft does not implement (yet): ``name`` is the Warp
    name (``wp.Mesh``), ``reason`` says why."""

    def __init__(self, name, reason):
        self.name = name
        self.reason = reason
        super().__init__(f"{name}: {reason}")


class _PlaceholderMeta(type):
    def __getitem__(cls, item):  # wp.tile[...], wp.ref[T]
        raise NotSupportedError(cls._weft_name, cls._weft_reason)


class _Placeholder(metaclass=_PlaceholderMeta):
    """A class of Warp that Weft does not implement: instantiating it
    raises ``NotSupportedError``."""

    _weft_name = "wp.?"
    _weft_reason = ""

    def __new__(cls, *args, **kwargs):
        raise NotSupportedError(cls._weft_name, cls._weft_reason)


def placeholder(qualname, reason, is_class=None):
    """A stand-in for Warp's ``qualname`` (``wp.Mesh``, ``wp.sparse.bsr_mm``)
    raising ``NotSupportedError(qualname, reason)`` when called. A class
    when ``is_class`` (default: the name starts with a capital letter, Warp's
    convention for classes)."""
    short = qualname.rsplit(".", 1)[-1]
    if is_class is None:
        is_class = short[:1].isupper()
    doc = f"Warp's ``{qualname}``, not implemented in Weft: {reason}."
    if is_class:
        return _PlaceholderMeta(short, (_Placeholder,), {"_weft_name": qualname, "_weft_reason": reason, "__doc__": doc})

    def stub(*args, **kwargs):
        raise NotSupportedError(qualname, reason)

    stub.__name__ = stub.__qualname__ = short
    stub.__doc__ = doc
    stub._weft_name, stub._weft_reason = qualname, reason
    return stub


class PlaceholderModule(_types.ModuleType):
    """A submodule of Warp that Weft does not implement: each public name
    read from it is a placeholder (``placeholder``) of that name."""

    def __init__(self, name, qualname, reason):
        super().__init__(name, f"Warp's ``{qualname}``, not implemented in Weft: {reason}.")
        self._weft_name, self._weft_reason = qualname, reason

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")
        p = placeholder(f"{self._weft_name}.{attr}", self._weft_reason)
        setattr(self, attr, p)
        return p


def placeholder_module(name, qualname, reason):
    """A ``PlaceholderModule`` named ``name`` (``weft.warp.fem.cache``),
    registered in ``sys.modules``."""
    m = sys.modules.get(name)
    if m is None:
        m = sys.modules[name] = PlaceholderModule(name, qualname, reason)
    return m


def is_placeholder(obj):
    """Whether ``obj`` is one of these stand-ins."""
    return getattr(obj, "_weft_reason", None) is not None and (
        (isinstance(obj, type) and issubclass(obj, _Placeholder)) or callable(obj)
    )


def _prefix(module):
    """``wp.`` names for the top level and its submodules (``wp.fem.``)."""
    return "wp" + module[len("warp") :]


# ----------------------------------------------------------------- reasons

BUILTIN = ("a builtin of the kernel language on arrays, memory, threads, volumes or tiles: "
           "it runs inside kernels, not on Python values (the others are _pyscope's)")
GEOMETRY = "Weft has no geometry types yet (meshes, BVHs, hash grids, volumes)"
GRAPH = "graph capture is not implemented in Weft yet (issue 26 item 4)"
STREAMS = "CUDA streams and events are not implemented in Weft"
ALLOC = "custom allocators and allocation tracking are not implemented in Weft"
TEXTURE = "Weft has no textures"
GL = "OpenGL interop is not implemented in Weft"
TILES = "Weft has no tiles (the tile programming model) yet"
TORCH = "PyTorch interop is not implemented in Weft"
JAX = "JAX interop is not implemented in Weft"
PADDLE = "Paddle interop is not implemented in Weft"
AOT = "ahead-of-time module compilation is not implemented in Weft"
CUDA_CTX = "Weft does not expose CUDA contexts or kernel launch configuration"
EXTERNAL = "Weft arrays own their memory: external pointers and IPC handles are not supported"
GRADS = "wp.grad (the adjoint of a func as a func) is not implemented in Weft yet"
NATIVE = "native (C++/CUDA) snippets do not exist in Weft: its kernels are compiled by its own compiler"
MAP = "wp.map (kernels generated from a func) is not implemented in Weft yet"
LIBFUNC = "the wp.funcs of Warp's library are not shipped with Weft yet"
BUILD = "Weft's compiler has no extension API for builtins or native types"
SPARSE = "warp.sparse (block sparse matrices) is not implemented in Weft yet"
OPTIM = "warp.optim is not implemented in Weft yet"
LINEAR = "warp.optim.linear (iterative linear solvers) is not implemented in Weft yet"
FEM = "warp.fem is not implemented in Weft"
RENDER = "warp.render needs OpenGL or USD, which Weft does not drive"
GEOMETRY_MOD = "warp.geometry (iso-surfaces, Delaunay, swept volumes) is not implemented in Weft"
AUTOGRAD = "warp.autograd (gradient checks and Jacobians) is not implemented in Weft yet"
COLORING = "graph coloring is not implemented in Weft yet"
SORT = "segmented sorts are not implemented in Weft yet"
RMM = "RAPIDS Memory Manager allocators are not supported by Weft"


# ------------------------------------------------------------------ table

# Warp's module name -> (reason, names) groups. Names are separated by
# white space; a name ending in "()" is a function although capitalized,
# one ending in "[]" a class although lowercase.
TABLE = {
    "warp": [
        (GEOMETRY, "Bvh BvhQuery BvhQueryTiled HashGrid HashGridQuery MarchingCubes Mesh MeshQuery MeshQueryAABB MeshQueryAABBTiled "
                   "MeshQueryPoint MeshQueryRay Volume"),
        (GRAPH, "Graph ScopedCapture capture_begin capture_end capture_launch capture_if capture_while capture_save "
                "capture_load capture_load_from_bytes capture_debug_dot_print"),
        (STREAMS, "Stream Event get_stream set_stream synchronize_stream wait_stream record_event wait_event "
                  "synchronize_event get_event_elapsed_time event_from_ipc_handle"),
        (ALLOC, "Allocator CudaManagedAllocator ScopedAllocator ScopedMemoryTracker get_device_allocator "
                "set_device_allocator set_cuda_allocator print_memory_report"),
        (TEXTURE, "Texture Texture1D Texture2D Texture3D"),
        (GL, "GLTextureResource RegisteredGLBuffer"),
        (TILES, "launch_tiled"),
        (TORCH, "from_torch to_torch device_from_torch device_to_torch dtype_from_torch dtype_to_torch "
                "stream_from_torch stream_to_torch"),
        (JAX, "from_jax to_jax device_from_jax device_to_jax dtype_from_jax dtype_to_jax jax_callable jax_kernel "
              "clear_jax_callable_graph_cache"),
        (PADDLE, "from_paddle to_paddle device_from_paddle device_to_paddle dtype_from_paddle dtype_to_paddle "
                 "stream_from_paddle"),
        (AOT, "compile_aot_module load_aot_module get_cpu_kernel_cache_key"),
        (CUDA_CTX, "map_cuda_device unmap_cuda_device get_cuda_kernel_properties get_cuda_max_cluster_dim "
                   "get_suggested_block_size"),
        (EXTERNAL, "from_ptr from_ipc_handle"),
        (GRADS, "grad"),
        (NATIVE, "ModuleBuildOptions"),
        (LIBFUNC, "quat_between_vectors"),
    ],
    "warp.utils": [
        (COLORING, "graph_coloring_assign graph_coloring_balance graph_coloring_get_groups"),
        (SORT, "segmented_sort_pairs"),
        (RMM, "AllocatorRmm"),
        (MAP, "create_warp_function"),
    ],
    "warp.sparse": [
        (SPARSE, "BsrMatrix BsrTripletMap bsr_assign bsr_axpy bsr_axpy_work_arrays[] bsr_block_index bsr_compress "
                 "bsr_copy bsr_diag bsr_from_triplets bsr_get_diag bsr_identity bsr_matrix_t bsr_mm "
                 "bsr_mm_work_arrays[] bsr_mv bsr_row_index bsr_scale bsr_set_diag bsr_set_from_mapped_values "
                 "bsr_set_from_triplets bsr_set_identity bsr_set_transpose bsr_set_zero bsr_transposed bsr_zeros"),
    ],
    "warp.optim": [
        (OPTIM, "Adam SGD"),
    ],
    "warp.optim.linear": [
        (LINEAR, "BiCGSTAB CG CR FSAI GMRES LinearOperator LinearSolverState aslinearoperator bicgstab cg cr gmres "
                 "preconditioner"),
    ],
    "warp.render": [
        (RENDER, "OpenGLRenderer UsdRenderer"),
    ],
    "warp.geometry": [
        (GEOMETRY_MOD, "IsoSurfaceBase IsoSurfaceMarchingCubes IsoSurfaceNets delaunay_edge_flip "
                       "find_triangle_neighbor_edge_index lipschitz_octree sparse_marching_cubes "
                       "sparse_marching_cubes_from_cells swept_volume_bounds swept_volume_field swept_volume_mesh "
                       "swept_volume_sdf tri_tri_adjacency"),
    ],
    "warp.autograd": [
        (AUTOGRAD, "gradcheck gradcheck_tape jacobian jacobian_fd jacobian_plot"),
    ],
    "warp.build_experimental": [
        (BUILD, "add_builtin add_native_type"),
    ],
    "warp.fem": [
        (FEM, "AdaptiveNanogrid BasisSpace BoundarySides CellBasedGeometryPartition Cells Coords[] Coords_f64[] D() "
              "DiscreteField DofMapper Domain Element ElementBasis ElementIndex[] ExplicitGeometryPartition "
              "ExplicitQuadrature Field FieldLike FrontierSides FunctionSpace Geometry GeometryDomain GeometryField "
              "GeometryPartition Grid2D Grid3D Hexmesh ImplicitField Integrand LinearGeometryPartition Nanogrid "
              "NodalQuadrature NodeIndex NonconformingField Operator PicQuadrature PointBasisSpace Quadmesh2D "
              "Quadmesh3D Quadrature QuadraturePointIndex[] RegularQuadrature Sample_f64[] ShapeBasisSpace "
              "ShapeFunction Sides SkewSymmetricTensorMapper SpacePartition SpaceRestriction SpaceTopology Subdomain "
              "SymmetricTensorMapper Temporary TemporaryStore Tetmesh Trimesh2D Trimesh3D UniformField "
              "adaptive_nanogrid_from_field adaptive_nanogrid_from_hierarchy at_node average borrow_temporary "
              "borrow_temporary_like cells curl deformation_gradient degree div div_outer element_closest_point "
              "element_coordinates element_index element_partition_index environment_index grad grad_average "
              "grad_jump grad_outer inner integrand integrate interpolate jump lookup "
              "make_collocated_function_space make_contravariant_function_space make_covariant_function_space "
              "make_discrete_field make_element_based_space_topology make_element_shape_function make_free_sample "
              "make_polynomial_basis_space make_polynomial_space make_restriction make_space_partition "
              "make_space_restriction make_test make_trial measure measure_ratio node_count node_index "
              "node_inner_weight node_inner_weight_gradient node_outer_weight node_outer_weight_gradient "
              "node_partition_index normal normalize_dirichlet_projector outer partition_lookup position "
              "project_linear_system project_system_matrix project_system_rhs scalar_type "
              "set_default_temporary_store to_cell_side to_inner_cell to_outer_cell"),
    ],
    "warp.fem.linalg": [
        (FEM, "array_axpy generalized_inner generalized_outer householder_make_hessenberg householder_qr_decomposition "
              "inverse_qr skew_part solve_triangular spherical_part symmetric_eigenvalues_qr symmetric_part "
              "tridiagonal_symmetric_eigenvalues_qr"),
    ],
    "warp.fem.utils": [
        (FEM, "grid_to_hexes grid_to_quads grid_to_tets grid_to_tris"),
    ],
}


def entries(module):
    """``(name, is_class or None, reason)`` of ``module``'s placeholders."""
    for reason, names in TABLE.get(module, ()):
        for n in names.split():
            if n.endswith("()"):
                yield n[:-2], False, reason
            elif n.endswith("[]"):
                yield n[:-2], True, reason
            else:
                yield n, None, reason


def install(namespace, module):
    """Defines ``module``'s placeholders (Warp's module name) in
    ``namespace`` (a module's ``globals()``), except names it defines."""
    prefix = _prefix(module)
    for name, is_class, reason in entries(module):
        if name not in namespace:
            namespace[name] = placeholder(f"{prefix}.{name}", reason, is_class)


_NAMES = None


def warp_names():
    """The contents of ``_warp_names.json`` (``scripts/warp-names.py``)."""
    global _NAMES
    if _NAMES is None:
        with open(os.path.join(os.path.dirname(__file__), "_warp_names.json")) as f:
            _NAMES = json.load(f)
    return _NAMES


def install_builtins(namespace):
    """Placeholders for Warp's builtins that ``namespace`` (the top level
    of ``weft.warp``) does not define: the kernel language's, not run at
    Python scope yet."""
    for name in warp_names()["builtins"]:
        if name not in namespace:
            namespace[name] = placeholder(f"wp.{name}", BUILTIN, False)
