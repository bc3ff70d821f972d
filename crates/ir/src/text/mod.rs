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

/// Why a module's text form does not round-trip.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoundTripError {
    #[error("the printed module does not parse: {0}")]
    Parse(#[from] ParseError),
    #[error(
        "line {line} differs after print → parse → print:\n  first:  {first}\n  second: {second}"
    )]
    Differs {
        /// 1-based line number in the printed text.
        line: usize,
        first: String,
        second: String,
    },
}

/// Prints `m`, parses the text and prints the result; returns the text if
/// both prints are identical, else the first difference. Used by the
/// corpus round-trip tests.
pub fn check_roundtrip(m: &crate::Module) -> Result<String, RoundTripError> {
    let first = print_module(m);
    let second = print_module(&parse_module(&first)?);
    if first == second {
        return Ok(first);
    }
    let mut a = first.lines();
    let mut b = second.lines();
    let mut line = 1;
    loop {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => line += 1,
            (x, y) => {
                return Err(RoundTripError::Differs {
                    line,
                    first: x.unwrap_or("<end>").to_string(),
                    second: y.unwrap_or("<end>").to_string(),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{check_roundtrip, parse_module, print_module};

    #[test]
    fn fast_math_attribute_round_trips() {
        let src = "kernel @k(v0 \"a\": array1<f32>) fast_math @0:4:1 {
  v1: i32 = thread_id
  v2: f32 = load v0[v1]
  store v0[v1], v2
  return
}

func @g(v0: f32) -> f32 fast_math {
  return v0
}
";
        let m = parse_module(src).unwrap();
        assert!(m.funcs.values().all(|f| f.fast_math));
        assert_eq!(print_module(&m), src);
        check_roundtrip(&m).unwrap();
        // Without the attribute the field is off and nothing is printed.
        let plain = parse_module(&src.replace(" fast_math", "")).unwrap();
        assert!(plain.funcs.values().all(|f| !f.fast_math));
        assert!(!print_module(&plain).contains("fast_math"));
    }
}
