//! The external tools: glslang's HLSL front end and `spirv-val`, run as
//! processes on files in a fresh temporary directory.

use crate::{HlslArtifact, HlslError};
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
    fn new() -> Result<TempDir, HlslError> {
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

fn io_err(tool: &str, path: &Path, e: std::io::Error) -> HlslError {
    HlslError::Tool {
        tool: tool.to_string(),
        message: format!("{}: {e}", path.display()),
    }
}

fn run(tool: &str, cmd: &mut Command) -> Result<(), HlslError> {
    let out = cmd.output().map_err(|e| HlslError::Tool {
        tool: tool.to_string(),
        message: e.to_string(),
    })?;
    if out.status.success() {
        return Ok(());
    }
    let mut message = String::from_utf8_lossy(&out.stdout).into_owned();
    message.push_str(&String::from_utf8_lossy(&out.stderr));
    Err(HlslError::Tool {
        tool: tool.to_string(),
        message: message.trim().to_string(),
    })
}

/// Compiles the shader to SPIR-V (Vulkan 1.1) with glslang's HLSL front end:
/// `glslangValidator -D -V -S comp -e main --target-env vulkan1.1
/// -DWEFT_GLSLANG=1`. The words are in host order.
pub fn compile_spirv(a: &HlslArtifact) -> Result<Vec<u32>, HlslError> {
    let tool = find_glslang().ok_or_else(|| HlslError::ToolMissing {
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
        return Err(HlslError::Tool {
            tool: "glslangValidator".into(),
            message: format!("output is not SPIR-V ({} bytes)", bytes.len()),
        });
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Validates SPIR-V with `spirv-val --target-env vulkan1.1`.
pub fn validate_spirv(spv: &[u32]) -> Result<(), HlslError> {
    let tool = find_spirv_val().ok_or_else(|| HlslError::ToolMissing {
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
