//! The facade's calls into the compiler layers (frontend, passes, CPU text
//! emission), kept in one place.

use crate::Error;
use std::path::PathBuf;
use weft_ir::Module;

pub use weft_passes::PassError;

pub use weft_frontend::Diagnostics;

/// Source text to IR (frontend only).
pub fn frontend(file_name: &str, source: &str) -> Result<Module, Error> {
    weft_frontend::compile(file_name, source).map_err(Error::Frontend)
}

/// Runs the pass pipeline.
pub fn passes(m: &mut Module, inline: bool, dump_dir: Option<PathBuf>) -> Result<(), Error> {
    let opts = weft_passes::PipelineOptions {
        inline,
        dump_dir,
        ..Default::default()
    };
    weft_passes::run_pipeline(m, &opts)?;
    Ok(())
}

/// Inserts the bounds-checked mode's tests (after the pipeline) and
/// verifies the result.
pub fn bounds_check(m: &mut Module) -> Result<(), Error> {
    weft_passes::bounds::insert_bounds_checks(m);
    weft_ir::verify::verify_module(m).map_err(|error| {
        Error::Pass(PassError::Verify {
            pass: "bounds-check".into(),
            error,
        })
    })
}

/// The Cranelift IR the CPU backend generates for `m`.
pub fn emit_clif(m: &Module) -> Result<String, Error> {
    weft_backend_cpu::emit_clif(m, &weft_backend_cpu::CpuOptions::default())
        .map_err(|e| Error::Backend(Box::new(e)))
}

/// The IR text of a module.
pub fn print_ir(m: &Module) -> String {
    weft_ir::text::print_module(m)
}
