//! The `soa` pass: structure-of-arrays layout of kernel array parameters.
//!
//! See [`LayoutOptions`] for which parameters are chosen. (Work in progress:
//! the rewrite itself follows.)

use weft_ir::ArrayLayout;

/// Which kernel array parameters are laid out structure of arrays.
///
/// Precedence, per parameter: an entry of `params` > the source hint
/// ([`weft_ir::Function::layout_hints`]) > `default`. The default value
/// (every field default) keeps every array AoS, and the `soa` pass is then
/// a no-op.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayoutOptions {
    /// Layout for every eligible array parameter without a more specific
    /// choice (default [`ArrayLayout::Aos`]). Ineligible arrays (scalar
    /// elements, structs mixing scalar types, 4-d arrays) stay AoS.
    pub default: ArrayLayout,
    /// Per parameter: `(kernel name, param name, layout)`; overrides hints
    /// and `default`. Asking SoA of an ineligible array is an error.
    pub params: Vec<(String, String, ArrayLayout)>,
}
