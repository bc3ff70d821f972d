//! [`Tape`]: records launches and runs their adjoints in reverse, as Warp's
//! `wp.Tape`; and the argument list of one adjoint launch.

use crate::{Arg, Array, Device, Error, Kernel, Module, Value};
use std::cell::Ref;

/// Launches recorded for differentiation (Warp's `wp.Tape`).
///
/// [`Tape::launch`] runs a kernel and records it; [`Tape::backward`] runs
/// the recorded launches' adjoints, newest first, each over its launch's
/// dimensions with its arguments: every array that carries a gradient
/// ([`Array::requires_grad`]) accumulates into it. The arrays are borrowed
/// for the tape's lifetime; their contents are read as they are when
/// `backward` runs (a tape does not snapshot them, as in Warp).
///
/// ```
/// use weft::{Arg, Array, Compiler, Device, Tape};
///
/// let module = Compiler::new().compile("sq.py", r#"
/// import warp as wp
///
/// @wp.kernel
/// def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
///     i = wp.tid()
///     y[i] = x[i] * x[i]
/// "#)?;
/// let cpu = Device::cpu();
/// let x = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?.requires_grad();
/// let y = Array::from_slice(&[0.0f32; 3], &[3])?.requires_grad();
/// let mut tape = Tape::new();
/// tape.launch(&cpu, &module, "square", &[3], &[Arg::array(&x), Arg::array(&y)])?;
/// let ones = Array::from_slice(&[1.0f32; 3], &[3])?;
/// tape.backward_with(&[(&y, &ones)])?;
/// assert_eq!(x.grad().unwrap().to_vec::<f32>()?, vec![2.0, 4.0, 6.0]);
/// # Ok::<(), weft::Error>(())
/// ```
#[derive(Default)]
pub struct Tape<'a> {
    launches: Vec<Recorded<'a>>,
}

struct Recorded<'a> {
    device: Device,
    module: &'a Module,
    kernel: String,
    dim: Vec<usize>,
    args: Vec<Arg<'a>>,
}

impl<'a> Tape<'a> {
    pub fn new() -> Tape<'a> {
        Tape::default()
    }
    /// Launches kernel `kernel` of `module` on `device` with `args` (as
    /// [`Device::launch`]) and records the launch.
    pub fn launch(
        &mut self,
        device: &Device,
        module: &'a Module,
        kernel: &str,
        dim: &[usize],
        args: &[Arg<'a>],
    ) -> Result<(), Error> {
        let k = device.load(module, kernel)?;
        device.launch(&k, dim, args)?;
        self.launches.push(Recorded {
            device: device.clone(),
            module,
            kernel: kernel.to_string(),
            dim: dim.to_vec(),
            args: args.to_vec(),
        });
        Ok(())
    }
    /// The number of recorded launches.
    pub fn len(&self) -> usize {
        self.launches.len()
    }
    pub fn is_empty(&self) -> bool {
        self.launches.is_empty()
    }
    /// Runs the adjoints of the recorded launches, newest first, with the
    /// gradients as they are (seed them first, or use
    /// [`Tape::backward_from`] / [`Tape::backward_with`]).
    pub fn backward(&self) -> Result<(), Error> {
        for l in self.launches.iter().rev() {
            let k = l.device.load_adjoint(l.module, &l.kernel)?;
            launch_adjoint(&l.device, &k, &l.dim, &l.args)?;
        }
        Ok(())
    }
    /// Sets the gradient of `loss` (one float element) to 1, then runs
    /// [`Tape::backward`].
    pub fn backward_from(&self, loss: &Array) -> Result<(), Error> {
        let scalar = loss.dtype().ty().as_scalar();
        let one = match scalar {
            Some(weft_ir::Scalar::F64) => 1.0f64.to_le_bytes().to_vec(),
            Some(weft_ir::Scalar::F32) => 1.0f32.to_le_bytes().to_vec(),
            Some(weft_ir::Scalar::F16) => weft_ir::f16::f64_to_f16(1.0).to_le_bytes().to_vec(),
            _ => Vec::new(),
        };
        if loss.len() != 1 || one.is_empty() {
            return Err(Error::Gradient(format!(
                "a loss must be one float element, not {} of {}",
                loss.len(),
                loss.dtype()
            )));
        }
        seed(loss, &one)?;
        self.backward()
    }
    /// Copies each seed into its array's gradient (Warp's
    /// `tape.backward(grads={array: seed})`), then runs [`Tape::backward`].
    pub fn backward_with(&self, grads: &[(&Array, &Array)]) -> Result<(), Error> {
        for (a, s) in grads {
            if !a.dtype().same_as(s.dtype()) || a.shape() != s.shape() {
                return Err(Error::Gradient(format!(
                    "the seed ({} of shape {:?}) does not match its array ({} of shape {:?})",
                    s.dtype(),
                    s.shape(),
                    a.dtype(),
                    a.shape()
                )));
            }
            seed(a, &s.to_bytes())?;
        }
        self.backward()
    }
    /// Sets the gradients of every array of the recorded launches to zero.
    pub fn zero(&self) {
        for l in &self.launches {
            for a in &l.args {
                if let Arg::Array(x) = a {
                    x.zero_grad();
                }
            }
        }
    }
    /// Forgets the recorded launches and zeroes their gradients.
    pub fn reset(&mut self) {
        self.zero();
        self.launches.clear();
    }
}

/// Writes `bytes` (C order, C layout) into `a`'s gradient.
fn seed(a: &Array, bytes: &[u8]) -> Result<(), Error> {
    let Some(mut g) = a.grad_mut() else {
        return Err(Error::Gradient(format!(
            "the array ({} of shape {:?}) has no gradient: make it with `requires_grad()`",
            a.dtype(),
            a.shape()
        )));
    };
    g.copy_from_bytes(bytes)?;
    Ok(())
}

/// Launches `adjoint` with the forward arguments `args`, each array's
/// gradient (or an empty array when it has none), a zero adjoint per value
/// and the arrays' retain flags (see `docs/autodiff.md`).
pub(crate) fn launch_adjoint(
    device: &Device,
    adjoint: &Kernel,
    dim: &[usize],
    args: &[Arg<'_>],
) -> Result<(), Error> {
    let grads: Vec<Option<Ref<'_, Array>>> = args
        .iter()
        .map(|a| match a {
            Arg::Array(x) => x.grad(),
            Arg::Value(_) => None,
        })
        .collect();
    let mut empties: Vec<Array> = Vec::new();
    let mut zeros: Vec<Value> = Vec::new();
    for (a, g) in args.iter().zip(&grads) {
        match (a, g) {
            (Arg::Array(x), None) => {
                let shape = vec![0; x.ndim()];
                empties.push(Array::zeros_with_layout(
                    x.dtype().clone(),
                    &shape,
                    x.layout(),
                )?);
            }
            (Arg::Value(v), _) => {
                zeros.push(Value::from_bytes(
                    v.dtype().clone(),
                    vec![0u8; v.bytes().len()],
                )?);
            }
            _ => {}
        }
    }
    let mut full: Vec<Arg<'_>> = args.to_vec();
    let (mut e, mut z) = (empties.iter(), zeros.iter());
    for (a, g) in args.iter().zip(&grads) {
        full.push(match (a, g) {
            (Arg::Array(_), Some(g)) => Arg::Array(g),
            (Arg::Array(_), None) => Arg::Array(e.next().ok_or_else(missing)?),
            (Arg::Value(_), _) => Arg::Value(z.next().ok_or_else(missing)?.clone()),
        });
    }
    for a in args {
        if let Arg::Array(x) = a {
            full.push(Arg::i32(x.retains_grad() as i32));
        }
    }
    device.launch(adjoint, dim, &full)
}

fn missing() -> Error {
    Error::Gradient("internal error: adjoint arguments out of step".into())
}
