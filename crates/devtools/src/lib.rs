//! # weft-devtools — the developers' tools over the `weft` library
//!
//! What measures and tests Weft from outside, as the `weft` command line
//! runs it (none of it is part of the library's API):
//!
//! * [`fuzz`]: the fuzz targets' bodies and seeds, the random program
//!   generator and `weft fuzz-diff`;
//! * [`bench`], [`gpu_bench`] and [`reference`]: `weft bench` /
//!   `weft bench-gpu` and the hand-written loops they are measured
//!   against; [`grad_bench`]: `weft bench --workload autodiff`;
//! * [`builtins`]: `weft builtins`, Warp's builtin registry against what
//!   each backend compiles (docs/builtins.md);
//! * `examples/pass_stats.rs`: what each pass of the pipeline earns over
//!   the conformance corpus.
//!
//! The fuzz targets and the compile-scaling bench drive the layers under
//! the facade (frontend, passes, backends, runtime) directly; everything
//! else goes through `weft`. Errors are the tools' one type,
//! [`weft_conform::Error`].

pub mod bench;
pub mod builtins;
pub mod fuzz;
pub mod gpu_bench;
pub mod grad_bench;
pub mod reference;

pub use weft_conform::Error;
