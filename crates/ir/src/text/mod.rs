//! The IR text form: a printer and a parser that round-trip.
//!
//! [`print_module`] renders a module; [`parse_module`] reads it back;
//! printing the parsed module gives the same text byte for byte. The syntax
//! is documented in `docs/ir.md`. In short:
//!
//! ```text
//! file 0 "nbody.py"
//!
//! struct %Particle { pos: vec3<f32>, mass: f32 }
//!
//! kernel @step(v0 "p": array1<%Particle>, v1 "dt": f32) @0:4:1 {
//!   v2 "i": i32 = thread_id @0:5:5
//!   v3: vec3<f32> = load v0[v2].0 @0:6:5
//!   return @0:7:5
//! }
//! ```
//!
//! # Value numbering
//!
//! Values are *renumbered* when printed: `v0, v1, ...` in order of
//! definition in the text (the body's params first, then each
//! instruction's results followed by the values defined in its regions). The
//! text of a function therefore does not depend on the order of its arenas,
//! which makes printed IR canonical: two functions with the same structure
//! print the same. The parser accepts any `vN` names (each defined once) and
//! allocates values in order of first appearance, so parsing printed text
//! gives arenas in print order.
//!
//! A value that is used but defined nowhere in the function's region tree
//! (invalid IR, which the verifier rejects) prints as `?vN` with its arena
//! number; such text does not parse.

mod parse;
mod print;

pub use parse::{parse_module, ParseError, MAX_DEPTH};
pub(crate) use print::{atomic_name, binary_name, type_text, unary_name, Numbering};
pub use print::{display_inst, print_function, print_module, DisplayInst};
