//! `.npy` files (format 1.0/2.0/3.0, little-endian, C order): read and write.
//!
//! A file is a magic string, a version, a header length, and a header that
//! is a Python dict literal `{'descr': ..., 'fortran_order': False,
//! 'shape': (...), }` padded with spaces to a multiple of 64 bytes, then the
//! raw data. `descr` is a type string like `'<f4'` or, for structured
//! dtypes, a list of `(name, descr[, shape])` tuples.

use std::fmt;

/// Errors reading an npy file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NpyError {
    #[error("not an npy file (bad magic)")]
    Magic,
    #[error("unsupported npy version {0}.{1}")]
    Version(u8, u8),
    #[error("truncated npy file")]
    Truncated,
    #[error("bad npy header: {0}")]
    Header(String),
    #[error("unsupported npy dtype {0}")]
    Dtype(String),
    #[error("Fortran-order npy files are not supported")]
    FortranOrder,
    #[error("npy data has {got} bytes, header says {expected}")]
    DataLength { expected: usize, got: usize },
}

/// A numpy dtype, as far as this reader needs one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NpyDtype {
    /// A scalar: kind (`b` bool, `i` signed, `u` unsigned, `f` float) and
    /// byte size.
    Scalar { kind: char, size: usize },
    /// A packed structured dtype: fields with their dtype and sub-shape.
    Struct(Vec<NpyField>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpyField {
    pub name: String,
    pub dtype: NpyDtype,
    pub shape: Vec<usize>,
}

impl NpyDtype {
    /// Size in bytes of one item (packed).
    pub fn itemsize(&self) -> usize {
        match self {
            NpyDtype::Scalar { size, .. } => *size,
            NpyDtype::Struct(fs) => fs
                .iter()
                .map(|f| f.dtype.itemsize() * f.shape.iter().product::<usize>())
                .sum(),
        }
    }
    /// The scalar leaves in order, each as (kind, size).
    pub fn leaves(&self) -> Vec<(char, usize)> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }
    fn collect(&self, out: &mut Vec<(char, usize)>) {
        match self {
            NpyDtype::Scalar { kind, size } => out.push((*kind, *size)),
            NpyDtype::Struct(fs) => {
                for f in fs {
                    for _ in 0..f.shape.iter().product::<usize>() {
                        f.dtype.collect(out);
                    }
                }
            }
        }
    }
}

impl fmt::Display for NpyDtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NpyDtype::Scalar { kind: 'b', size: 1 } => f.write_str("'|b1'"),
            NpyDtype::Scalar { kind, size: 1 } => write!(f, "'|{kind}1'"),
            NpyDtype::Scalar { kind, size } => write!(f, "'<{kind}{size}'"),
            NpyDtype::Struct(fs) => {
                f.write_str("[")?;
                for (i, fd) in fs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "('{}', {}", fd.name, fd.dtype)?;
                    if !fd.shape.is_empty() {
                        write!(f, ", {}", shape_tuple(&fd.shape))?;
                    }
                    f.write_str(")")?;
                }
                f.write_str("]")
            }
        }
    }
}

fn shape_tuple(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// An npy file's contents.
#[derive(Clone, Debug, PartialEq)]
pub struct Npy {
    pub dtype: NpyDtype,
    pub shape: Vec<usize>,
    /// Raw little-endian data, C order, packed items.
    pub data: Vec<u8>,
}

impl Npy {
    pub fn parse(bytes: &[u8]) -> Result<Npy, NpyError> {
        if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
            return Err(NpyError::Magic);
        }
        let (major, minor) = (bytes[6], bytes[7]);
        let (hlen, start) = match major {
            1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
            2 | 3 => {
                if bytes.len() < 12 {
                    return Err(NpyError::Truncated);
                }
                (
                    u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
                    12,
                )
            }
            _ => return Err(NpyError::Version(major, minor)),
        };
        let header = bytes.get(start..start + hlen).ok_or(NpyError::Truncated)?;
        let header =
            std::str::from_utf8(header).map_err(|_| NpyError::Header("not UTF-8".into()))?;
        let lit = PyParser::new(header).parse_all()?;
        let PyLit::Dict(entries) = lit else {
            return Err(NpyError::Header("not a dict".into()));
        };
        let get = |k: &str| entries.iter().find(|(n, _)| n == k).map(|(_, v)| v);
        let dtype = parse_descr(get("descr").ok_or_else(|| NpyError::Header("no descr".into()))?)?;
        match get("fortran_order") {
            Some(PyLit::Bool(false)) => {}
            Some(PyLit::Bool(true)) => return Err(NpyError::FortranOrder),
            _ => return Err(NpyError::Header("no fortran_order".into())),
        }
        let shape = match get("shape") {
            Some(PyLit::Tuple(xs)) => xs.iter().map(as_usize).collect::<Result<Vec<_>, _>>()?,
            _ => return Err(NpyError::Header("no shape".into())),
        };
        let data = bytes[start + hlen..].to_vec();
        let expected = shape.iter().product::<usize>() * dtype.itemsize();
        if data.len() != expected {
            return Err(NpyError::DataLength {
                expected,
                got: data.len(),
            });
        }
        Ok(Npy { dtype, shape, data })
    }

    /// Serialises as npy format 1.0.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut header = format!(
            "{{'descr': {}, 'fortran_order': False, 'shape': {}, }}",
            self.dtype,
            shape_tuple(&self.shape)
        );
        let unpadded = 10 + header.len() + 1;
        header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
        header.push('\n');
        let mut out = Vec::with_capacity(10 + header.len() + self.data.len());
        out.extend_from_slice(b"\x93NUMPY\x01\x00");
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(&self.data);
        out
    }
}

fn as_usize(l: &PyLit) -> Result<usize, NpyError> {
    match l {
        PyLit::Int(n) if *n >= 0 => Ok(*n as usize),
        _ => Err(NpyError::Header("expected a non-negative integer".into())),
    }
}

fn parse_descr(l: &PyLit) -> Result<NpyDtype, NpyError> {
    match l {
        PyLit::Str(s) => {
            let b = s.as_bytes();
            let (order, rest) = match b.first() {
                Some(b'<' | b'|' | b'=') => (b[0], &s[1..]),
                Some(b'>') => return Err(NpyError::Dtype(s.clone())),
                _ => (b'|', s.as_str()),
            };
            let mut chars = rest.chars();
            let kind = chars.next().ok_or_else(|| NpyError::Dtype(s.clone()))?;
            let size: usize = chars
                .as_str()
                .parse()
                .map_err(|_| NpyError::Dtype(s.clone()))?;
            let ok = matches!(
                (kind, size),
                ('b', 1) | ('i' | 'u', 1 | 2 | 4 | 8) | ('f', 2 | 4 | 8)
            );
            if !ok || (order == b'|' && size > 1) {
                return Err(NpyError::Dtype(s.clone()));
            }
            Ok(NpyDtype::Scalar { kind, size })
        }
        PyLit::List(items) => {
            let mut fields = Vec::new();
            for it in items {
                let PyLit::Tuple(parts) = it else {
                    return Err(NpyError::Header("struct field is not a tuple".into()));
                };
                let (name, dt, shape) = match parts.as_slice() {
                    [PyLit::Str(n), d] => (n, d, Vec::new()),
                    [PyLit::Str(n), d, PyLit::Tuple(sh)] => {
                        (n, d, sh.iter().map(as_usize).collect::<Result<_, _>>()?)
                    }
                    _ => return Err(NpyError::Header("bad struct field".into())),
                };
                fields.push(NpyField {
                    name: name.clone(),
                    dtype: parse_descr(dt)?,
                    shape,
                });
            }
            Ok(NpyDtype::Struct(fields))
        }
        _ => Err(NpyError::Header("bad descr".into())),
    }
}

/// The subset of Python literals npy headers use.
#[derive(Clone, Debug, PartialEq)]
enum PyLit {
    Str(String),
    Int(i64),
    Bool(bool),
    Tuple(Vec<PyLit>),
    List(Vec<PyLit>),
    Dict(Vec<(String, PyLit)>),
}

struct PyParser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> PyParser<'a> {
    fn new(s: &'a str) -> Self {
        PyParser {
            s: s.as_bytes(),
            pos: 0,
        }
    }
    fn err(&self, what: &str) -> NpyError {
        NpyError::Header(format!("{what} at byte {}", self.pos))
    }
    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn parse_all(mut self) -> Result<PyLit, NpyError> {
        let v = self.value()?;
        if self.peek().is_some() {
            return Err(self.err("trailing text"));
        }
        Ok(v)
    }
    /// Items up to `close`, allowing a trailing comma.
    fn seq(&mut self, close: u8) -> Result<Vec<PyLit>, NpyError> {
        let mut out = Vec::new();
        loop {
            if self.eat(close) {
                return Ok(out);
            }
            out.push(self.value()?);
            if !self.eat(b',') {
                if self.eat(close) {
                    return Ok(out);
                }
                return Err(self.err("expected ',' or a closing bracket"));
            }
        }
    }
    fn value(&mut self) -> Result<PyLit, NpyError> {
        match self.peek() {
            Some(b'\'' | b'"') => self.string().map(PyLit::Str),
            Some(b'(') => {
                self.pos += 1;
                self.seq(b')').map(PyLit::Tuple)
            }
            Some(b'[') => {
                self.pos += 1;
                self.seq(b']').map(PyLit::List)
            }
            Some(b'{') => {
                self.pos += 1;
                let mut out = Vec::new();
                loop {
                    if self.eat(b'}') {
                        return Ok(PyLit::Dict(out));
                    }
                    let k = self.string()?;
                    if !self.eat(b':') {
                        return Err(self.err("expected ':'"));
                    }
                    out.push((k, self.value()?));
                    if !self.eat(b',') {
                        if self.eat(b'}') {
                            return Ok(PyLit::Dict(out));
                        }
                        return Err(self.err("expected ',' or '}'"));
                    }
                }
            }
            Some(c) if c.is_ascii_digit() || c == b'-' => {
                let start = self.pos;
                self.pos += 1;
                while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                    self.pos += 1;
                }
                // Python 2 era headers may write longs as `3L`.
                let text = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("");
                let n = text.parse().map_err(|_| self.err("bad integer"))?;
                if self.s.get(self.pos) == Some(&b'L') {
                    self.pos += 1;
                }
                Ok(PyLit::Int(n))
            }
            Some(_) => {
                for (word, v) in [("True", true), ("False", false)] {
                    if self.s[self.pos..].starts_with(word.as_bytes()) {
                        self.pos += word.len();
                        return Ok(PyLit::Bool(v));
                    }
                }
                Err(self.err("unexpected character"))
            }
            None => Err(self.err("unexpected end")),
        }
    }
    fn string(&mut self) -> Result<String, NpyError> {
        let Some(q @ (b'\'' | b'"')) = self.peek() else {
            return Err(self.err("expected a string"));
        };
        self.pos += 1;
        let start = self.pos;
        while self.pos < self.s.len() && self.s[self.pos] != q {
            self.pos += 1;
        }
        if self.pos >= self.s.len() {
            return Err(self.err("unterminated string"));
        }
        let s = String::from_utf8_lossy(&self.s[start..self.pos]).into_owned();
        self.pos += 1;
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_scalar_and_struct_headers() {
        let n = Npy {
            dtype: NpyDtype::Scalar { kind: 'f', size: 4 },
            shape: vec![2, 3],
            data: vec![0; 24],
        };
        let b = n.to_bytes();
        assert_eq!((10 + u16::from_le_bytes([b[8], b[9]]) as usize) % 64, 0);
        assert_eq!(Npy::parse(&b).unwrap(), n);

        let hdr = "{'descr': [('frame', [('R', '<f4', (3, 3)), ('t', '<f4', (3,))]), ('scale', '<f4'), ('tag', '<i4')], 'fortran_order': False, 'shape': (2,), }";
        let mut file = b"\x93NUMPY\x01\x00".to_vec();
        file.extend_from_slice(&(hdr.len() as u16).to_le_bytes());
        file.extend_from_slice(hdr.as_bytes());
        file.extend_from_slice(&[0u8; 2 * 56]);
        let s = Npy::parse(&file).unwrap();
        assert_eq!(s.dtype.itemsize(), 56);
        assert_eq!(s.dtype.leaves().len(), 14);
        assert_eq!(Npy::parse(&s.to_bytes()).unwrap(), s);
        assert_eq!(
            s.dtype.to_string(),
            "[('frame', [('R', '<f4', (3, 3)), ('t', '<f4', (3,))]), ('scale', '<f4'), ('tag', '<i4')]"
        );
    }

    #[test]
    fn rejects_bad_files() {
        assert_eq!(Npy::parse(b"hello world").unwrap_err(), NpyError::Magic);
        let n = Npy {
            dtype: NpyDtype::Scalar { kind: 'i', size: 4 },
            shape: vec![4],
            data: vec![0; 16],
        };
        let b = n.to_bytes();
        assert!(matches!(
            Npy::parse(&b[..b.len() - 1]),
            Err(NpyError::DataLength { .. })
        ));
        let bool_npy = Npy {
            dtype: NpyDtype::Scalar { kind: 'b', size: 1 },
            shape: vec![3],
            data: vec![0, 1, 0],
        };
        assert!(String::from_utf8_lossy(&bool_npy.to_bytes()).contains("'|b1'"));
        assert_eq!(Npy::parse(&bool_npy.to_bytes()).unwrap(), bool_npy);
    }
}
