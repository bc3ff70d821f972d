//! The facade's calls into the compiler layers (frontend, passes, CPU text
//! emission), kept in one place.

use crate::Error;
use weft_ir::Module;

pub use weft_passes::PassError;

pub use weft_frontend::Diagnostics;

/// Source text to IR (frontend only).
pub fn frontend(file_name: &str, source: &str) -> Result<Module, Error> {
    weft_frontend::compile(file_name, source).map_err(Error::Frontend)
}

/// Source text to IR with custom gradients, for the adjoint pass.
pub fn frontend_for_backward(file_name: &str, source: &str) -> Result<Module, Error> {
    weft_frontend::compile_for_backward(file_name, source).map_err(Error::Frontend)
}

/// The pass pipeline options of compile options.
pub fn pipeline_options(o: &crate::CompileOptions) -> weft_passes::PipelineOptions {
    weft_passes::PipelineOptions {
        opt_level: o.opt_level,
        inline: o.opt,
        fast_math: o.fast_math,
        fast_math_kernels: o.fast_math_kernels.clone(),
        dump_dir: o.dump_dir.clone(),
        layout: o.layout.clone(),
        ..Default::default()
    }
}

/// Runs the pass pipeline of `o`.
pub fn passes(m: &mut Module, o: &crate::CompileOptions) -> Result<(), Error> {
    if o.deterministic {
        for f in m.funcs.values_mut() {
            f.deterministic = true;
        }
    }
    weft_passes::run_pipeline(m, &pipeline_options(o))?;
    Ok(())
}

/// What `weft build --print-pipeline` prints for `o`.
pub fn describe_pipeline(o: &crate::CompileOptions) -> String {
    let text = weft_passes::pipeline(o.opt_level, &pipeline_options(o)).describe();
    if text.is_empty() {
        "(no passes)\n".to_string()
    } else {
        text
    }
}

/// Inserts the bounds-checked mode's tests (after the pipeline) and
/// verifies the result.
pub fn bounds_check(m: &mut Module) -> Result<(), Error> {
    weft_passes::bounds::insert_bounds_checks(m);
    weft_ir::verify::verify_module(m)
        .map(drop)
        .map_err(|error| {
            Error::Pass(PassError::Verify {
                pass: "bounds-check".into(),
                error,
            })
        })
}

/// The Cranelift IR the CPU backend generates for `m`.
pub fn emit_clif(m: &Module) -> Result<String, Error> {
    let info = verify(m)?;
    weft_backend_cpu::emit_text(m, &info, &weft_backend_cpu::Options::default())
        .map_err(|e| Error::Backend(Box::new(e)))
}

/// Verifies `m` for a backend: what the verifier knows of it, or the
/// verifier's error.
pub fn verify(m: &Module) -> Result<weft_ir::ModuleInfo, Error> {
    weft_ir::verify::verify_module(m).map_err(|e| Error::Runtime(e.into()))
}

/// The IR text of a module.
pub fn print_ir(m: &Module) -> String {
    weft_ir::text::print_module(m)
}
