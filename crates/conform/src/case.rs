//! `case.json`: the launch description of a conformance case (single- and
//! multi-launch formats, and a gradient case's `adjoint` section; see the
//! corpus README).

use serde_json::Value as Json;
use std::path::{Path, PathBuf};

/// Errors loading or running a case as described.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error("{}: {msg}", path.display())]
    Format { path: PathBuf, msg: String },
    #[error("{}: {source}", path.display())]
    Npy {
        path: PathBuf,
        #[source]
        source: super::npy::NpyError,
    },
}

/// An array the case creates from an npy file.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferSpec {
    pub name: String,
    /// Warp dtype name or struct name.
    pub dtype: String,
    pub ndim: usize,
    pub shape: Vec<usize>,
    /// File name relative to the case directory.
    pub file: String,
}

/// One argument of a launch.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgSpec {
    /// An array parameter bound to a buffer.
    Array { param: String, buffer: String },
    /// A by-value parameter.
    Scalar {
        param: String,
        dtype: String,
        value: Json,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct LaunchSpec {
    pub kernel: String,
    pub dim: Vec<usize>,
    pub args: Vec<ArgSpec>,
}

/// A parsed case.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub name: String,
    /// The case directory (holding `kernel.py` and the npy files).
    pub dir: PathBuf,
    pub buffers: Vec<BufferSpec>,
    pub launches: Vec<LaunchSpec>,
    /// Buffers compared with `expected_<name>.npy`.
    pub check: Vec<String>,
    pub rtol: f64,
    pub atol: f64,
    /// Per-buffer `(name, rtol, atol)` overrides.
    pub tolerances: Vec<(String, f64, f64)>,
    /// A gradient case's `adjoint` section.
    pub adjoint: Option<AdjointSpec>,
}

/// The `adjoint` section of a gradient case (the corpus README, "Gradient
/// cases"): which buffers carry gradients, the output adjoints written into
/// them before backward, and the gradients compared after it.
#[derive(Clone, Debug, PartialEq)]
pub struct AdjointSpec {
    pub requires_grad: Vec<String>,
    pub retain_grad: Vec<String>,
    /// `(buffer, npy file)`.
    pub seed: Vec<(String, String)>,
    /// Buffers whose gradient is compared with `expected_grad_<name>.npy`.
    pub check: Vec<String>,
    pub rtol: f64,
    pub atol: f64,
    pub tolerances: Vec<(String, f64, f64)>,
}

impl AdjointSpec {
    /// `(rtol, atol)` for the gradient of buffer `name`.
    pub fn tolerance(&self, name: &str) -> (f64, f64) {
        lookup(&self.tolerances, name, (self.rtol, self.atol))
    }
}

fn lookup(t: &[(String, f64, f64)], name: &str, default: (f64, f64)) -> (f64, f64) {
    t.iter()
        .find(|(n, _, _)| n == name)
        .map_or(default, |&(_, r, a)| (r, a))
}

struct Ctx<'a> {
    path: &'a Path,
}

impl Ctx<'_> {
    fn err(&self, msg: impl Into<String>) -> CaseError {
        CaseError::Format {
            path: self.path.to_path_buf(),
            msg: msg.into(),
        }
    }
    fn field<'j>(&self, obj: &'j Json, key: &str, what: &str) -> Result<&'j Json, CaseError> {
        obj.get(key)
            .ok_or_else(|| self.err(format!("{what}: missing `{key}`")))
    }
    fn str(&self, obj: &Json, key: &str, what: &str) -> Result<String, CaseError> {
        self.field(obj, key, what)?
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| self.err(format!("{what}: `{key}` must be a string")))
    }
    fn usizes(&self, obj: &Json, key: &str, what: &str) -> Result<Vec<usize>, CaseError> {
        let bad = || {
            self.err(format!(
                "{what}: `{key}` must be a list of non-negative integers"
            ))
        };
        self.field(obj, key, what)?
            .as_array()
            .ok_or_else(bad)?
            .iter()
            .map(|v| v.as_u64().map(|n| n as usize).ok_or_else(bad))
            .collect()
    }
    fn names(
        &self,
        obj: &Json,
        key: &str,
        buffers: &[BufferSpec],
    ) -> Result<Vec<String>, CaseError> {
        let names: Vec<String> = match obj.get(key) {
            None => Vec::new(),
            Some(c) => c
                .as_array()
                .and_then(|xs| xs.iter().map(|x| x.as_str().map(str::to_string)).collect())
                .ok_or_else(|| self.err(format!("`{key}` must be a list of names")))?,
        };
        if let Some(c) = names
            .iter()
            .find(|c| !buffers.iter().any(|b| &b.name == *c))
        {
            return Err(self.err(format!("`{key}` names `{c}`, which is not an array")));
        }
        Ok(names)
    }
    fn tolerances(&self, obj: &Json) -> Result<Vec<(String, f64, f64)>, CaseError> {
        let mut out = Vec::new();
        if let Some(t) = obj.get("tolerances") {
            let o = t
                .as_object()
                .ok_or_else(|| self.err("`tolerances` must be an object"))?;
            for (k, v) in o {
                out.push((k.clone(), self.num(v, "rtol")?, self.num(v, "atol")?));
            }
        }
        Ok(out)
    }
    fn adjoint(&self, a: &Json, buffers: &[BufferSpec]) -> Result<AdjointSpec, CaseError> {
        if !a.is_object() {
            return Err(self.err("`adjoint` must be an object"));
        }
        let requires_grad = self.names(a, "requires_grad", buffers)?;
        let mut seed = Vec::new();
        if let Some(s) = a.get("seed") {
            let o = s
                .as_object()
                .ok_or_else(|| self.err("`adjoint.seed` must be an object"))?;
            for (k, v) in o {
                let file = v
                    .as_str()
                    .filter(|f| !f.contains('/') && !f.contains('\\') && !f.starts_with('.'))
                    .ok_or_else(|| {
                        self.err(format!("`adjoint.seed.{k}` must be a plain file name"))
                    })?;
                if !requires_grad.contains(k) {
                    return Err(self.err(format!(
                        "`adjoint.seed` seeds `{k}`, which is not in `requires_grad`"
                    )));
                }
                seed.push((k.clone(), file.to_string()));
            }
        }
        let check = self.names(a, "check", buffers)?;
        if let Some(c) = check.iter().find(|c| !requires_grad.contains(c)) {
            return Err(self.err(format!(
                "`adjoint.check` names `{c}`, which has no gradient (not in `requires_grad`)"
            )));
        }
        Ok(AdjointSpec {
            retain_grad: self.names(a, "retain_grad", buffers)?,
            requires_grad,
            seed,
            check,
            rtol: self.num(a, "rtol")?,
            atol: self.num(a, "atol")?,
            tolerances: self.tolerances(a)?,
        })
    }
    fn num(&self, obj: &Json, key: &str) -> Result<f64, CaseError> {
        match obj.get(key) {
            None => Ok(0.0),
            Some(v) => v
                .as_f64()
                .ok_or_else(|| self.err(format!("`{key}` must be a number"))),
        }
    }
    fn buffer(&self, a: &Json) -> Result<BufferSpec, CaseError> {
        let name = self.str(a, "name", "array argument")?;
        let what = format!("array `{name}`");
        let b = BufferSpec {
            dtype: self.str(a, "dtype", &what)?,
            ndim: self
                .field(a, "ndim", &what)?
                .as_u64()
                .ok_or_else(|| self.err(format!("{what}: `ndim` must be an integer")))?
                as usize,
            shape: self.usizes(a, "shape", &what)?,
            file: self.str(a, "file", &what)?,
            name,
        };
        if b.shape.len() != b.ndim {
            return Err(self.err(format!(
                "{what}: shape {:?} has not ndim {} axes",
                b.shape, b.ndim
            )));
        }
        if b.file.contains('/') || b.file.contains('\\') || b.file.starts_with('.') {
            return Err(self.err(format!(
                "{what}: file `{}` must be a plain file name",
                b.file
            )));
        }
        Ok(b)
    }
    fn scalar(&self, a: &Json, param: String) -> Result<ArgSpec, CaseError> {
        let what = format!("scalar `{param}`");
        Ok(ArgSpec::Scalar {
            dtype: self.str(a, "dtype", &what)?,
            value: self.field(a, "value", &what)?.clone(),
            param,
        })
    }
    fn launch(
        &self,
        l: &Json,
        buffers: &[BufferSpec],
        multi: bool,
    ) -> Result<LaunchSpec, CaseError> {
        let kernel = self.str(l, "kernel", "launch")?;
        let what = format!("launch of `{kernel}`");
        let dim = self.usizes(l, "dim", &what)?;
        let args = self
            .field(l, "args", &what)?
            .as_array()
            .ok_or_else(|| self.err(format!("{what}: `args` must be a list")))?;
        let mut out = Vec::new();
        for a in args {
            let param = self.str(a, "name", &what)?;
            match self
                .str(a, "kind", &format!("argument `{param}`"))?
                .as_str()
            {
                "array" => {
                    let buffer = if multi {
                        self.str(a, "buffer", &format!("argument `{param}`"))?
                    } else {
                        param.clone()
                    };
                    if !buffers.iter().any(|b| b.name == buffer) {
                        return Err(self.err(format!("argument `{param}`: no buffer `{buffer}`")));
                    }
                    out.push(ArgSpec::Array { param, buffer });
                }
                "scalar" => out.push(self.scalar(a, param)?),
                k => return Err(self.err(format!("argument `{param}`: unknown kind `{k}`"))),
            }
        }
        Ok(LaunchSpec {
            kernel,
            dim,
            args: out,
        })
    }
}

impl Case {
    /// Loads a case from its directory or its `case.json`.
    pub fn load(path: &Path) -> Result<Case, CaseError> {
        let (dir, file) = if path.is_dir() {
            (path.to_path_buf(), path.join("case.json"))
        } else {
            (
                path.parent()
                    .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
                path.to_path_buf(),
            )
        };
        let text = std::fs::read_to_string(&file).map_err(|e| CaseError::Format {
            path: file.clone(),
            msg: e.to_string(),
        })?;
        Case::parse(&text, &file, dir)
    }

    /// Parses `case.json` text; `file` is used in errors, `dir` is the case
    /// directory.
    pub fn parse(text: &str, file: &Path, dir: PathBuf) -> Result<Case, CaseError> {
        let cx = Ctx { path: file };
        let j: Json = serde_json::from_str(text).map_err(|e| cx.err(format!("bad JSON: {e}")))?;
        if !j.is_object() {
            return Err(cx.err("case.json must hold an object"));
        }
        let name = match j.get("name").and_then(Json::as_str) {
            Some(n) => n.to_string(),
            None => dir
                .file_name()
                .map_or_else(|| "case".to_string(), |n| n.to_string_lossy().into_owned()),
        };
        let (buffers, launches) = if let Some(bufs) = j.get("buffers") {
            let buffers = bufs
                .as_array()
                .ok_or_else(|| cx.err("`buffers` must be a list"))?
                .iter()
                .map(|b| cx.buffer(b))
                .collect::<Result<Vec<_>, _>>()?;
            let launches = cx
                .field(&j, "launches", "multi-launch case")?
                .as_array()
                .ok_or_else(|| cx.err("`launches` must be a list"))?
                .iter()
                .map(|l| cx.launch(l, &buffers, true))
                .collect::<Result<Vec<_>, _>>()?;
            (buffers, launches)
        } else {
            let args = cx
                .field(&j, "args", "case")?
                .as_array()
                .ok_or_else(|| cx.err("`args` must be a list"))?;
            let buffers = args
                .iter()
                .filter(|a| a.get("kind").and_then(Json::as_str) == Some("array"))
                .map(|a| cx.buffer(a))
                .collect::<Result<Vec<_>, _>>()?;
            let launch = cx.launch(&j, &buffers, false)?;
            (buffers, vec![launch])
        };
        for (i, b) in buffers.iter().enumerate() {
            if buffers[..i].iter().any(|o| o.name == b.name) {
                return Err(cx.err(format!("buffer `{}` is defined twice", b.name)));
            }
        }
        let check = cx.names(&j, "check", &buffers)?;
        let tolerances = cx.tolerances(&j)?;
        let adjoint = match j.get("adjoint") {
            None => None,
            Some(a) => Some(cx.adjoint(a, &buffers)?),
        };
        Ok(Case {
            name,
            dir,
            buffers,
            launches,
            check,
            rtol: cx.num(&j, "rtol")?,
            atol: cx.num(&j, "atol")?,
            tolerances,
            adjoint,
        })
    }

    /// `(rtol, atol)` for buffer `name`.
    pub fn tolerance(&self, name: &str) -> (f64, f64) {
        lookup(&self.tolerances, name, (self.rtol, self.atol))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_single_and_multi_launch() {
        let single = r#"{"name": "s", "kernel": "k", "dim": [4],
          "args": [{"name": "x", "kind": "array", "dtype": "float32", "ndim": 1, "shape": [4], "file": "x.npy"},
                   {"name": "a", "kind": "scalar", "dtype": "float32", "value": 0.5}],
          "check": ["x"], "rtol": 1e-5, "atol": 0.0, "tolerances": {"x": {"rtol": 0.1, "atol": 0.2}}}"#;
        let c = Case::parse(single, Path::new("case.json"), PathBuf::from("s")).unwrap();
        assert_eq!(c.launches.len(), 1);
        assert_eq!(c.buffers[0].name, "x");
        assert_eq!(c.tolerance("x"), (0.1, 0.2));
        assert!(matches!(&c.launches[0].args[1], ArgSpec::Scalar { param, .. } if param == "a"));

        let multi = r#"{"name": "m", "buffers": [
            {"name": "u", "kind": "array", "dtype": "float32", "ndim": 1, "shape": [2], "file": "u.npy"}],
          "launches": [{"kernel": "k", "dim": [2], "args": [
            {"name": "src", "kind": "array", "dtype": "float32", "buffer": "u"}]}],
          "check": ["u"], "rtol": 0, "atol": 0}"#;
        let m = Case::parse(multi, Path::new("case.json"), PathBuf::from("m")).unwrap();
        assert_eq!(
            m.launches[0].args[0],
            ArgSpec::Array {
                param: "src".into(),
                buffer: "u".into()
            }
        );
    }

    #[test]
    fn reports_bad_cases() {
        let bad = r#"{"kernel": "k", "dim": [4], "args": [], "check": ["y"]}"#;
        let e = Case::parse(bad, Path::new("c.json"), PathBuf::from("c")).unwrap_err();
        assert!(e.to_string().contains("`y`"), "{e}");
        let bad = r#"{"kernel": "k", "dim": [4], "args": [
            {"name": "x", "kind": "array", "dtype": "float32", "ndim": 2, "shape": [4], "file": "x.npy"}]}"#;
        assert!(Case::parse(bad, Path::new("c.json"), PathBuf::from("c")).is_err());
        assert!(Case::parse("[1]", Path::new("c.json"), PathBuf::from("c")).is_err());
    }
}
