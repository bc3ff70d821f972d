//! Code shared by the examples: command-line options, opening a device,
//! timing, and a renderer whose kernels (`common/render.py`) are written in
//! the Warp language and run by Weft on the example's device.
//!
//! Each example includes this module with
//! `#[path = "common/mod.rs"] mod common;` and hands its `run` function to
//! [`main`], which parses the options, prints errors without panicking and
//! sets the exit status.
//!
//! Images are `wp.array2d(dtype=wp.vec3)` arrays of linear RGB in [0, 1]
//! (row 0 at the top) made on the device; [`Renderer::save_png`] quantizes
//! one on the host and writes it as an 8-bit RGB PNG.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use weft::{Arg, Array, Compiler, Device, Kernel};

const RENDER_SOURCE: &str = include_str!("render.py");

/// The options every example understands.
#[derive(Clone, Debug)]
pub struct Options {
    /// `--device`: cpu, vulkan, cuda, llvm-cpu or interp (default cpu).
    pub device: String,
    /// `--steps`: time steps (default: the example's).
    pub steps: Option<usize>,
    /// `--n` / `--size`: the problem size (bodies, particles, grid side).
    pub size: Option<usize>,
    /// `--frames`: PNG frames to write over the run (default 1, 0: none).
    pub frames: usize,
    /// `--report`: print diagnostics every K steps (0: start and end only).
    pub report: usize,
    /// `--out`: the directory frames go to (default `out/<example>`).
    pub out: PathBuf,
    /// `--width`: image width in pixels (default 512).
    pub width: usize,
}

/// What the command line asked for.
#[derive(Debug)]
pub enum Parsed {
    Run(Options),
    Help,
}

/// The options part of each example's usage text.
pub const COMMON_USAGE: &str = "options:
  --device D    cpu (Cranelift JIT, all cores; default), llvm-cpu, vulkan, cuda, interp
  --steps S     time steps to run
  --n N         problem size (alias --size)
  --frames F    PNG frames to write over the run (default 1 = the final state; 0: none)
  --report K    print diagnostics every K steps (default 0: start and end only)
  --width W     image width in pixels (default 512)
  --out DIR     where frames go (default out/<example>)";

/// Parses `args` (without the program name), both `--flag value` and
/// `--flag=value`.
pub fn parse_args(example: &str, args: impl IntoIterator<Item = String>) -> Result<Parsed, String> {
    let mut opts = Options {
        device: "cpu".to_string(),
        steps: None,
        size: None,
        frames: 1,
        report: 0,
        out: Path::new("out").join(example),
        width: 512,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "-h" || arg == "--help" {
            return Ok(Parsed::Help);
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        const FLAGS: [&str; 8] = [
            "--device", "--steps", "--n", "--size", "--frames", "--report", "--out", "--width",
        ];
        if !FLAGS.contains(&flag.as_str()) {
            return Err(format!("unknown argument `{arg}`"));
        }
        let value = inline
            .or_else(|| args.next())
            .ok_or_else(|| format!("`{flag}` needs a value"))?;
        let count = |v: &str| {
            v.parse::<usize>()
                .map_err(|_| format!("`{flag}` wants a non-negative integer, got `{v}`"))
        };
        match flag.as_str() {
            "--device" => opts.device = value,
            "--steps" => opts.steps = Some(count(&value)?),
            "--n" | "--size" => {
                let n = count(&value)?;
                if n == 0 || n > 1 << 24 {
                    return Err(format!("`{flag}` must be between 1 and {}", 1 << 24));
                }
                opts.size = Some(n);
            }
            "--frames" => opts.frames = count(&value)?,
            "--report" => opts.report = count(&value)?,
            "--width" => {
                let w = count(&value)?;
                if !(16..=4096).contains(&w) {
                    return Err("`--width` must be between 16 and 4096".to_string());
                }
                opts.width = w;
            }
            _ => opts.out = PathBuf::from(value),
        }
    }
    Ok(Parsed::Run(opts))
}

/// Errors of an example run.
#[derive(Debug)]
pub enum ExampleError {
    Weft(weft::Error),
    Io(PathBuf, std::io::Error),
    Png(PathBuf, png::EncodingError),
    /// A simulation that went wrong (non-finite state, a broken invariant).
    Sim(String),
}

impl std::fmt::Display for ExampleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExampleError::Weft(e) => write!(f, "{}", e.render(false)),
            ExampleError::Io(p, e) => write!(f, "error: {}: {e}", p.display()),
            ExampleError::Png(p, e) => write!(f, "error: {}: {e}", p.display()),
            ExampleError::Sim(m) => write!(f, "error: {m}"),
        }
    }
}

impl From<weft::Error> for ExampleError {
    fn from(e: weft::Error) -> Self {
        ExampleError::Weft(e)
    }
}

impl From<weft::ArrayError> for ExampleError {
    fn from(e: weft::ArrayError) -> Self {
        ExampleError::Weft(e.into())
    }
}

/// The examples' `main`: parses the command line, runs `run`, prints any
/// error and returns the exit status (2 for a bad command line).
pub fn main(
    example: &str,
    usage: &str,
    run: impl FnOnce(Options) -> Result<(), ExampleError>,
) -> ExitCode {
    match parse_args(example, std::env::args().skip(1)) {
        Ok(Parsed::Help) => {
            println!("{usage}\n\n{COMMON_USAGE}");
            ExitCode::SUCCESS
        }
        Ok(Parsed::Run(opts)) => match run(opts) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        },
        Err(msg) => {
            eprintln!("error: {msg}\n\n{usage}\n\n{COMMON_USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Opens the device named on the command line (an error, not a panic, if it
/// is unknown or absent). On `cpu` the vector tier is compiled with each
/// module (`DeviceOptions::tier_up` zero): an example runs long, and its
/// steps/s is the steady state, its compile time all of the compiling.
pub fn open_device(name: &str) -> Result<Device, ExampleError> {
    let opts = weft::DeviceOptions {
        tier_up: std::time::Duration::ZERO,
        ..Default::default()
    };
    Ok(Device::open_with(name, &opts)?)
}

/// Accumulates the time spent stepping, for the steps/s report.
#[derive(Debug, Default)]
pub struct Stopwatch {
    seconds: f64,
    steps: usize,
}

impl Stopwatch {
    /// Times `f` as `steps` steps.
    pub fn time<T>(&mut self, steps: usize, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let r = f();
        self.seconds += t.elapsed().as_secs_f64();
        self.steps += steps;
        r
    }
    pub fn seconds(&self) -> f64 {
        self.seconds
    }
    pub fn steps(&self) -> usize {
        self.steps
    }
    pub fn steps_per_s(&self) -> f64 {
        self.steps as f64 / self.seconds.max(f64::MIN_POSITIVE)
    }
    /// Prints the steps, the time spent stepping and steps/s.
    pub fn report(&self, device: &Device) {
        println!(
            "{} steps on {} in {:.3} s: {:.2} steps/s",
            self.steps,
            device.name(),
            self.seconds,
            self.steps_per_s()
        );
    }
}

/// The steps after which frame `k` of `frames` is written: evenly spread,
/// the last one at `steps`. Empty when `frames` is 0.
pub fn frame_steps(steps: usize, frames: usize) -> Vec<usize> {
    (1..=frames).map(|k| k * steps / frames).collect()
}

/// An orthographic camera: `center` maps to the image centre, `right` and
/// `up` (unit, orthogonal) to the image axes, `scale` pixels per unit.
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    pub center: [f32; 3],
    pub right: [f32; 3],
    pub up: [f32; 3],
    /// Into the picture, for the soft depth test.
    pub forward: [f32; 3],
    pub scale: f32,
    /// How strongly nearer discs win: weights go as `exp(-sharpness *
    /// depth)` (0: plain averaging).
    pub sharpness: f32,
}

impl Camera {
    /// A camera looking along +z turned by `yaw` about the world y axis,
    /// then tilted down by `pitch` (radians); `extent` world units fit
    /// across an image `width` pixels wide.
    pub fn orbit(center: [f32; 3], yaw: f32, pitch: f32, extent: f32, width: usize) -> Camera {
        let (sy, cy) = yaw.sin_cos();
        let (sp, cp) = pitch.sin_cos();
        let right = [cy, 0.0, -sy];
        // forward = (sy*cp, -sp, cy*cp) toward the scene; up = right × forward.
        let fwd = [sy * cp, -sp, cy * cp];
        let up = [
            right[1] * fwd[2] - right[2] * fwd[1],
            right[2] * fwd[0] - right[0] * fwd[2],
            right[0] * fwd[1] - right[1] * fwd[0],
        ];
        // Screen up is world-up-ish whatever the handedness.
        let up = if up[1] < 0.0 { up.map(|c| -c) } else { up };
        Camera {
            center,
            right,
            up,
            forward: fwd,
            scale: width as f32 / extent,
            sharpness: 100.0 / extent,
        }
    }
}

/// The renderer's kernels and buffers on one device.
pub struct Renderer {
    device: Device,
    clear: Kernel,
    splat: Kernel,
    resolve: Kernel,
    color_by_value: Kernel,
    field_image: Kernel,
    accum: Array,
    /// The image: `wp.array2d(dtype=wp.vec3)`, `height` × `width`.
    pub image: Array,
    pub width: usize,
    pub height: usize,
}

impl Renderer {
    /// Compiles the render kernels for `device`; images are `width` ×
    /// `height`.
    pub fn new(device: &Device, width: usize, height: usize) -> Result<Renderer, ExampleError> {
        let module = Compiler::new().compile("examples/common/render.py", RENDER_SOURCE)?;
        let load = |name: &str| device.load(&module, name);
        let image = Array::from_slice(&vec![[0.0f32; 3]; width * height], &[height, width])?;
        Ok(Renderer {
            device: device.clone(),
            clear: load("clear_accum")?,
            splat: load("splat")?,
            resolve: load("resolve")?,
            color_by_value: load("color_by_value")?,
            field_image: load("field_image")?,
            accum: Array::from_slice(&vec![0.0f32; width * height * 5], &[height, width, 5])?,
            image,
            width,
            height,
        })
    }

    /// Draws `points` (`vec3` array) as discs of `radius` (a `float` array,
    /// world units) in `colors` (`vec3` array) seen by `camera`, over
    /// `background`: [`Renderer::begin`], one [`Renderer::splat`] and
    /// [`Renderer::finish`].
    pub fn points(
        &self,
        points: &Array,
        colors: &Array,
        radius: &Array,
        camera: &Camera,
        background: [f32; 3],
    ) -> Result<(), ExampleError> {
        self.begin()?;
        self.splat(points, colors, radius, camera)?;
        self.finish(background)
    }

    /// Starts a picture: clears the splat accumulator.
    pub fn begin(&self) -> Result<(), ExampleError> {
        self.device.launch(
            &self.clear,
            &[self.height, self.width, 5],
            &[Arg::array(&self.accum)],
        )?;
        Ok(())
    }

    /// Adds discs for `points` to the picture (see [`Renderer::points`]).
    pub fn splat(
        &self,
        points: &Array,
        colors: &Array,
        radius: &Array,
        camera: &Camera,
    ) -> Result<(), ExampleError> {
        self.device.launch(
            &self.splat,
            &[points.len()],
            &[
                Arg::array(points),
                Arg::array(colors),
                Arg::array(radius),
                Arg::vec3(camera.center),
                Arg::vec3(camera.right),
                Arg::vec3(camera.up),
                Arg::vec3(camera.forward),
                Arg::f32(camera.scale),
                Arg::f32(camera.sharpness),
                Arg::array(&self.accum),
            ],
        )?;
        Ok(())
    }

    /// Resolves the accumulated discs over `background` into the image.
    pub fn finish(&self, background: [f32; 3]) -> Result<(), ExampleError> {
        self.device.launch(
            &self.resolve,
            &[self.height, self.width],
            &[
                Arg::array(&self.accum),
                Arg::vec3(background),
                Arg::array(&self.image),
            ],
        )?;
        Ok(())
    }

    /// Fills `colors` (`vec3` array) from `values` (`float` array) through
    /// the colormap, `lo`..`hi` spanning it.
    pub fn colorize(
        &self,
        values: &Array,
        lo: f32,
        hi: f32,
        colors: &Array,
    ) -> Result<(), ExampleError> {
        self.device.launch(
            &self.color_by_value,
            &[values.len()],
            &[
                Arg::array(values),
                Arg::f32(lo),
                Arg::f32(hi),
                Arg::array(colors),
            ],
        )?;
        Ok(())
    }

    /// Draws a 2-D scalar field (`wp.array2d(dtype=float)`, row 0 at the
    /// bottom) over the whole image through the colormap.
    pub fn field(&self, field: &Array, lo: f32, hi: f32) -> Result<(), ExampleError> {
        self.device.launch(
            &self.field_image,
            &[self.height, self.width],
            &[
                Arg::array(field),
                Arg::f32(lo),
                Arg::f32(hi),
                Arg::array(&self.image),
            ],
        )?;
        Ok(())
    }

    /// The image as 8-bit RGB bytes (sRGB-ish gamma 2.2), row 0 first.
    pub fn rgb8(&self) -> Result<Vec<u8>, ExampleError> {
        let px = self.image.to_vec::<[f32; 3]>()?;
        Ok(px
            .iter()
            .flat_map(|p| p.map(|c| (c.clamp(0.0, 1.0).powf(1.0 / 2.2) * 255.0 + 0.5) as u8))
            .collect())
    }

    /// Writes the image to `path` as a PNG, creating its directory.
    pub fn save_png(&self, path: &Path) -> Result<(), ExampleError> {
        write_png(path, self.width, self.height, &self.rgb8()?)
    }
}

/// Writes 8-bit RGB `pixels` (row 0 first) to `path` as a PNG.
pub fn write_png(
    path: &Path,
    width: usize,
    height: usize,
    pixels: &[u8],
) -> Result<(), ExampleError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| ExampleError::Io(dir.to_path_buf(), e))?;
    }
    let file = std::fs::File::create(path).map_err(|e| ExampleError::Io(path.to_path_buf(), e))?;
    let png_err = |e| ExampleError::Png(path.to_path_buf(), e);
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width as u32, height as u32);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Best);
    let mut writer = enc.write_header().map_err(png_err)?;
    writer.write_image_data(pixels).map_err(png_err)?;
    writer.finish().map_err(png_err)?;
    Ok(())
}

/// `out/frame_0003.png` style names.
pub fn frame_path(dir: &Path, index: usize) -> PathBuf {
    dir.join(format!("frame_{index:04}.png"))
}

/// Static points to draw (scenery: floors, box edges, obstacles), uploaded
/// once.
pub struct Splats {
    pub points: Array,
    pub colors: Array,
    pub radius: Array,
}

impl Splats {
    pub fn new(
        points: &[[f32; 3]],
        colors: &[[f32; 3]],
        radius: &[f32],
    ) -> Result<Splats, ExampleError> {
        let n = points.len();
        Ok(Splats {
            points: Array::from_slice(points, &[n])?,
            colors: Array::from_slice(colors, &[n])?,
            radius: Array::from_slice(radius, &[n])?,
        })
    }

    /// Dots every `spacing` along the twelve edges of the box `lo`..`hi`.
    pub fn box_edges(
        lo: [f32; 3],
        hi: [f32; 3],
        spacing: f32,
        color: [f32; 3],
        radius: f32,
    ) -> Result<Splats, ExampleError> {
        let mut pts = Vec::new();
        for axis in 0..3 {
            let (a, b) = ((axis + 1) % 3, (axis + 2) % 3);
            let steps = ((hi[axis] - lo[axis]) / spacing).ceil().max(1.0) as usize;
            for corner in 0..4 {
                let mut p = [0.0f32; 3];
                p[a] = if corner & 1 == 0 { lo[a] } else { hi[a] };
                p[b] = if corner & 2 == 0 { lo[b] } else { hi[b] };
                for k in 0..=steps {
                    p[axis] = lo[axis] + (hi[axis] - lo[axis]) * k as f32 / steps as f32;
                    pts.push(p);
                }
            }
        }
        let n = pts.len();
        Splats::new(&pts, &vec![color; n], &vec![radius; n])
    }

    /// A checkerboard of dots on the plane y = `y` over `lo`..`hi` in x and z.
    pub fn floor(
        lo: [f32; 2],
        hi: [f32; 2],
        y: f32,
        spacing: f32,
        radius: f32,
    ) -> Result<Splats, ExampleError> {
        let (mut pts, mut cols) = (Vec::new(), Vec::new());
        let nx = ((hi[0] - lo[0]) / spacing).ceil() as usize;
        let nz = ((hi[1] - lo[1]) / spacing).ceil() as usize;
        for i in 0..=nx {
            for k in 0..=nz {
                pts.push([lo[0] + i as f32 * spacing, y, lo[1] + k as f32 * spacing]);
                cols.push(if (i / 4 + k / 4) % 2 == 0 {
                    [0.16, 0.17, 0.2]
                } else {
                    [0.1, 0.1, 0.12]
                });
            }
        }
        let n = pts.len();
        Splats::new(&pts, &cols, &vec![radius; n])
    }

    /// Adds these points to `renderer`'s picture.
    pub fn draw(&self, renderer: &Renderer, camera: &Camera) -> Result<(), ExampleError> {
        renderer.splat(&self.points, &self.colors, &self.radius, camera)
    }
}
