//! The external tools: glslang's HLSL front end and `spirv-val`, run as
//! processes on files in a fresh temporary directory.

use crate::{Error, Shader};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// The Vulkan version the SPIR-V targets.
const TARGET_ENV: &str = "vulkan1.1";

fn find_tool(env: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env) {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// `glslangValidator`: `$WEFT_GLSLANG` if set, else the first on `PATH`.
pub fn find_glslang() -> Option<PathBuf> {
    find_tool("WEFT_GLSLANG", &["glslangValidator", "glslang"])
}

/// `spirv-val`: `$WEFT_SPIRV_VAL` if set, else the first on `PATH`.
pub fn find_spirv_val() -> Option<PathBuf> {
    find_tool("WEFT_SPIRV_VAL", &["spirv-val"])
}

/// A temporary directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir, Error> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "weft-hlsl-{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(|e| io_err("temporary directory", &dir, e))?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn io_err(tool: &str, path: &Path, e: std::io::Error) -> Error {
    Error::Tool {
        tool: tool.to_string(),
        message: format!("{}: {e}", path.display()),
    }
}

fn run(tool: &str, cmd: &mut Command) -> Result<(), Error> {
    let out = cmd.output().map_err(|e| Error::Tool {
        tool: tool.to_string(),
        message: e.to_string(),
    })?;
    if out.status.success() {
        return Ok(());
    }
    let mut message = String::from_utf8_lossy(&out.stdout).into_owned();
    message.push_str(&String::from_utf8_lossy(&out.stderr));
    Err(Error::Tool {
        tool: tool.to_string(),
        message: message.trim().to_string(),
    })
}

/// Compiles the shader to SPIR-V (Vulkan 1.1) with glslang's HLSL front end:
/// `glslangValidator -D -V -S comp -e main --target-env vulkan1.1
/// -DWEFT_GLSLANG=1`. The words are in host order.
pub fn compile_spirv(a: &Shader) -> Result<Vec<u32>, Error> {
    let tool = find_glslang().ok_or_else(|| Error::ToolMissing {
        tool: "glslangValidator".into(),
        env: "WEFT_GLSLANG".into(),
        package: "glslang-tools".into(),
    })?;
    let dir = TempDir::new()?;
    let src = dir.0.join(format!("{}.hlsl", sanitize(&a.kernel)));
    let spv = dir.0.join("out.spv");
    std::fs::write(&src, &a.source).map_err(|e| io_err("glslangValidator", &src, e))?;
    run(
        "glslangValidator",
        Command::new(&tool)
            .args(["-D", "-V", "-S", "comp", "-e"])
            .arg(&a.entry)
            .args(["--target-env", TARGET_ENV, "-DWEFT_GLSLANG=1", "-o"])
            .arg(&spv)
            .arg(&src),
    )?;
    let bytes = std::fs::read(&spv).map_err(|e| io_err("glslangValidator", &spv, e))?;
    if bytes.len() % 4 != 0 || bytes.len() < 20 {
        return Err(Error::Tool {
            tool: "glslangValidator".into(),
            message: format!("output is not SPIR-V ({} bytes)", bytes.len()),
        });
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    preserve_inf_nan(&words).ok_or_else(|| Error::Tool {
        tool: "glslangValidator".into(),
        message: "malformed SPIR-V output".into(),
    })
}

const OP_EXTENSION: u32 = 10;
const OP_ENTRY_POINT: u32 = 15;
const OP_EXECUTION_MODE: u32 = 16;
const OP_CAPABILITY: u32 = 17;
const CAP_FLOAT64: u32 = 10;
const CAP_SIGNED_ZERO_INF_NAN_PRESERVE: u32 = 4466;
const MODE_SIGNED_ZERO_INF_NAN_PRESERVE: u32 = 4461;

/// Adds the `SignedZeroInfNanPreserve` execution mode (SPV_KHR_float_controls)
/// for 32-bit floats (and 64-bit ones when used) to every entry point, so
/// that Vulkan drivers keep IEEE semantics for NaN, infinities and signed
/// zeros (HLSL cannot request it). `None` if the module is malformed.
pub(crate) fn preserve_inf_nan(spv: &[u32]) -> Option<Vec<u32>> {
    if spv.len() < 5 || spv[0] != 0x0723_0203 {
        return None;
    }
    let mut insts = Vec::new();
    let mut i = 5;
    while i < spv.len() {
        let n = (spv[i] >> 16) as usize;
        if n == 0 || i + n > spv.len() {
            return None;
        }
        insts.push(&spv[i..i + n]);
        i += n;
    }
    let op = |w: &[u32]| w[0] & 0xffff;
    let float64 = insts
        .iter()
        .any(|w| op(w) == OP_CAPABILITY && w.get(1) == Some(&CAP_FLOAT64));
    let last_cap = insts.iter().rposition(|w| op(w) == OP_CAPABILITY)?;
    let last_mode = insts
        .iter()
        .rposition(|w| op(w) == OP_ENTRY_POINT || op(w) == OP_EXECUTION_MODE)?;
    let entries: Vec<u32> = insts
        .iter()
        .filter(|w| op(w) == OP_ENTRY_POINT)
        .filter_map(|w| w.get(2).copied())
        .collect();
    let mut ext: Vec<u32> = Vec::new();
    let mut name = b"SPV_KHR_float_controls".to_vec();
    name.resize(name.len() / 4 * 4 + 4, 0);
    ext.push(((1 + name.len() as u32 / 4) << 16) | OP_EXTENSION);
    ext.extend(
        name.chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
    let mut out = spv[..5].to_vec();
    for (k, w) in insts.iter().enumerate() {
        out.extend_from_slice(w);
        if k == last_cap {
            out.extend_from_slice(&[(2 << 16) | OP_CAPABILITY, CAP_SIGNED_ZERO_INF_NAN_PRESERVE]);
            out.extend_from_slice(&ext);
        }
        if k == last_mode {
            for &e in &entries {
                for width in [32, 64].into_iter().filter(|&b| b == 32 || float64) {
                    out.extend_from_slice(&[
                        (4 << 16) | OP_EXECUTION_MODE,
                        e,
                        MODE_SIGNED_ZERO_INF_NAN_PRESERVE,
                        width,
                    ]);
                }
            }
        }
    }
    Some(out)
}

/// Validates SPIR-V with `spirv-val --target-env vulkan1.1`.
pub fn validate_spirv(spv: &[u32]) -> Result<(), Error> {
    let tool = find_spirv_val().ok_or_else(|| Error::ToolMissing {
        tool: "spirv-val".into(),
        env: "WEFT_SPIRV_VAL".into(),
        package: "spirv-tools".into(),
    })?;
    let dir = TempDir::new()?;
    let path = dir.0.join("k.spv");
    let bytes: Vec<u8> = spv.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).map_err(|e| io_err("spirv-val", &path, e))?;
    run(
        "spirv-val",
        Command::new(&tool)
            .args(["--target-env", TARGET_ENV])
            .arg(&path),
    )
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}
