//! The on-disk compile cache.
//!
//! A [`Cache`] is a directory of entries, each one file named by the hex of
//! its [`CacheKey`]: a SHA-256 over length-prefixed parts (for PTX: the IR
//! text of the module, which is the source as the backend sees it, the
//! options, the target, the libdevice used and the Weft version; see
//! [`ptx_cached`]). The payload is opaque bytes, so the cache serves any
//! artifact.
//!
//! # Entry format
//!
//! `WEFTCACHE1` magic (10 bytes), payload length (u64 LE), SHA-256 of the
//! payload (32 bytes), payload. An entry is written to a unique temporary
//! file in the same directory and renamed into place, so readers see either
//! no entry or a whole one, and concurrent writers of one key each succeed
//! (the last rename wins; all wrote the same bytes). On load, magic, length
//! and checksum are verified: a corrupt or truncated entry is reported as
//! [`Lookup::Corrupt`], removed, and treated as a miss by [`Cache::get`], so
//! the artifact is rebuilt and written again.
//!
//! # Location
//!
//! `$WEFT_CACHE_DIR` if set, else `$XDG_CACHE_HOME/weft`, else
//! `~/.cache/weft` ([`default_dir`]).

use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const MAGIC: &[u8; 10] = b"WEFTCACHE1";
const HEADER: usize = MAGIC.len() + 8 + 32;

/// Errors of cache writes (reads never fail: a bad entry is a miss).
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("compile cache {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("no cache directory: set WEFT_CACHE_DIR, XDG_CACHE_HOME or HOME")]
    NoDir,
}

/// A 256-bit cache key.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey([u8; 32]);

impl CacheKey {
    /// The key of `parts` (each length-prefixed, so part boundaries count)
    /// and the Weft version.
    pub fn new(parts: &[&[u8]]) -> CacheKey {
        let mut h = Sha256::new();
        let version = env!("CARGO_PKG_VERSION").as_bytes();
        for p in std::iter::once(version).chain(parts.iter().copied()) {
            h.update((p.len() as u64).to_le_bytes());
            h.update(p);
        }
        CacheKey(h.finalize().into())
    }
    /// Lower-case hex, the entry's file name.
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// What a lookup found.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    Hit(Vec<u8>),
    Miss,
    /// An entry was there but failed verification (it has been removed).
    Corrupt(String),
}

/// A cache directory; see the module docs.
#[derive(Clone, Debug)]
pub struct Cache {
    dir: PathBuf,
}

/// The default cache directory (module docs).
pub fn default_dir() -> Option<PathBuf> {
    let var = |k| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("WEFT_CACHE_DIR")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("weft")))
        .or_else(|| var("HOME").map(|d| d.join(".cache").join("weft")))
}

impl Cache {
    /// Opens (creating it if needed) the cache at `dir`.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Cache, CacheError> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).map_err(|source| CacheError::Io {
            path: dir.clone(),
            source,
        })?;
        Ok(Cache { dir })
    }
    /// Opens the cache at [`default_dir`].
    pub fn open_default() -> Result<Cache, CacheError> {
        Cache::open(default_dir().ok_or(CacheError::NoDir)?)
    }
    pub fn dir(&self) -> &Path {
        &self.dir
    }
    fn path(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(key.hex())
    }

    /// The payload stored under `key`, if there is a valid entry.
    pub fn get(&self, key: &CacheKey) -> Option<Vec<u8>> {
        match self.lookup(key) {
            Lookup::Hit(b) => Some(b),
            Lookup::Miss | Lookup::Corrupt(_) => None,
        }
    }

    /// Looks `key` up, verifying the entry; a corrupt one is removed.
    pub fn lookup(&self, key: &CacheKey) -> Lookup {
        let path = self.path(key);
        let Ok(bytes) = std::fs::read(&path) else {
            return Lookup::Miss;
        };
        match decode(&bytes) {
            Ok(payload) => Lookup::Hit(payload.to_vec()),
            Err(why) => {
                let _ = std::fs::remove_file(&path);
                Lookup::Corrupt(why)
            }
        }
    }

    /// Stores `payload` under `key`, atomically (temporary file + rename).
    pub fn put(&self, key: &CacheKey, payload: &[u8]) -> Result<(), CacheError> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let path = self.path(key);
        let tmp = self.dir.join(format!(
            ".{}.{}.{}.tmp",
            key.hex(),
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        let io = |p: &Path| {
            let p = p.to_path_buf();
            move |source| CacheError::Io { path: p, source }
        };
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(MAGIC)?;
            f.write_all(&(payload.len() as u64).to_le_bytes())?;
            f.write_all(&Sha256::digest(payload))?;
            f.write_all(payload)?;
            f.sync_all()
        };
        if let Err(e) = write() {
            let _ = std::fs::remove_file(&tmp);
            return Err(io(&tmp)(e));
        }
        std::fs::rename(&tmp, &path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            io(&path)(e)
        })
    }

    /// The payload under `key`, or `build`'s result, stored (a failed
    /// store is ignored: the cache only saves time). The flag says whether
    /// it was a hit.
    pub fn get_or_build<E>(
        &self,
        key: &CacheKey,
        build: impl FnOnce() -> Result<Vec<u8>, E>,
    ) -> Result<(Vec<u8>, bool), E> {
        if let Some(b) = self.get(key) {
            return Ok((b, true));
        }
        let b = build()?;
        let _ = self.put(key, &b);
        Ok((b, false))
    }
}

/// The payload of an entry, or why the entry is invalid.
fn decode(bytes: &[u8]) -> Result<&[u8], String> {
    if bytes.len() < HEADER || &bytes[..MAGIC.len()] != MAGIC {
        return Err("bad header".into());
    }
    let mut len = [0u8; 8];
    len.copy_from_slice(&bytes[MAGIC.len()..MAGIC.len() + 8]);
    let len = u64::from_le_bytes(len);
    let payload = &bytes[HEADER..];
    if payload.len() as u64 != len {
        return Err(format!(
            "length {} but the header says {len}",
            payload.len()
        ));
    }
    if Sha256::digest(payload).as_slice() != &bytes[MAGIC.len() + 8..HEADER] {
        return Err("checksum mismatch".into());
    }
    Ok(payload)
}

// ---- PTX ----

/// Serialises a PTX artifact: one `kernel NAME SYMBOL PARAM_SIZE` line per
/// kernel, a `ptx` line, then the PTX text.
fn encode_ptx(a: &weft_backend_ptx::PtxArtifact) -> Vec<u8> {
    let mut s = String::new();
    for k in &a.kernels {
        s.push_str(&format!(
            "kernel {} {} {}\n",
            k.name, k.entry_symbol, k.param_size
        ));
    }
    s.push_str("ptx\n");
    s.push_str(&a.ptx);
    s.into_bytes()
}

fn decode_ptx(b: &[u8]) -> Option<weft_backend_ptx::PtxArtifact> {
    let s = std::str::from_utf8(b).ok()?;
    let mut kernels = Vec::new();
    let mut rest = s;
    loop {
        let (line, tail) = rest.split_once('\n')?;
        rest = tail;
        if line == "ptx" {
            break;
        }
        let mut w = line.split(' ');
        let (Some("kernel"), Some(name), Some(sym), Some(size), None) =
            (w.next(), w.next(), w.next(), w.next(), w.next())
        else {
            return None;
        };
        kernels.push(weft_backend_ptx::PtxKernelInfo {
            name: name.to_string(),
            entry_symbol: sym.to_string(),
            param_size: size.parse().ok()?,
        });
    }
    Some(weft_backend_ptx::PtxArtifact {
        ptx: rest.to_string(),
        kernels,
    })
}

/// The cache key of `m` compiled to PTX with `opts`.
pub fn ptx_key(m: &weft_ir::Module, opts: &weft_backend_ptx::PtxOptions) -> CacheKey {
    let ir = weft_ir::text::print_module(m);
    let libdevice = weft_backend_ptx::find_libdevice(opts.libdevice.as_deref())
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let opts = format!("{opts:?}");
    CacheKey::new(&[
        b"ptx",
        b"nvptx64-nvidia-cuda",
        ir.as_bytes(),
        opts.as_bytes(),
        libdevice.as_bytes(),
    ])
}

/// [`weft_backend_ptx::emit_ptx`] through the default cache (uncached if
/// it cannot be opened); the flag says whether it was a hit.
pub fn ptx_cached(
    m: &weft_ir::Module,
    opts: &weft_backend_ptx::PtxOptions,
) -> Result<(weft_backend_ptx::PtxArtifact, bool), weft_backend_ptx::PtxError> {
    let Ok(cache) = Cache::open_default() else {
        return Ok((weft_backend_ptx::emit_ptx(m, opts)?, false));
    };
    ptx_cached_in(&cache, m, opts)
}

/// [`ptx_cached`] with an explicit cache.
pub fn ptx_cached_in(
    cache: &Cache,
    m: &weft_ir::Module,
    opts: &weft_backend_ptx::PtxOptions,
) -> Result<(weft_backend_ptx::PtxArtifact, bool), weft_backend_ptx::PtxError> {
    let key = ptx_key(m, opts);
    if let Some(a) = cache.get(&key).as_deref().and_then(decode_ptx) {
        return Ok((a, true));
    }
    let a = weft_backend_ptx::emit_ptx(m, opts)?;
    let _ = cache.put(&key, &encode_ptx(&a));
    Ok((a, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("weft-cache-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn hit_and_miss() {
        let c = Cache::open(scratch("hit")).unwrap();
        let k = CacheKey::new(&[b"a", b"b"]);
        assert_ne!(k, CacheKey::new(&[b"ab"]));
        assert_eq!(c.lookup(&k), Lookup::Miss);
        c.put(&k, b"payload").unwrap();
        assert_eq!(c.get(&k).as_deref(), Some(&b"payload"[..]));
        let mut built = 0;
        let (b, hit) = c
            .get_or_build(&k, || {
                built += 1;
                Ok::<_, ()>(b"other".to_vec())
            })
            .unwrap();
        assert_eq!((b.as_slice(), hit, built), (&b"payload"[..], true, 0));
        let _ = std::fs::remove_dir_all(c.dir());
    }

    #[test]
    fn corrupt_entries_are_rebuilt() {
        let c = Cache::open(scratch("corrupt")).unwrap();
        let k = CacheKey::new(&[b"x"]);
        c.put(&k, b"0123456789").unwrap();
        let path = c.dir().join(k.hex());
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(c.lookup(&k), Lookup::Corrupt(ref w) if w.contains("checksum")));
        assert!(!path.exists());
        // Truncated entry.
        c.put(&k, b"0123456789").unwrap();
        std::fs::write(&path, &std::fs::read(&path).unwrap()[..HEADER + 3]).unwrap();
        let (b, hit) = c
            .get_or_build(&k, || Ok::<_, ()>(b"rebuilt".to_vec()))
            .unwrap();
        assert_eq!((b.as_slice(), hit), (&b"rebuilt"[..], false));
        assert_eq!(c.get(&k).as_deref(), Some(&b"rebuilt"[..]));
        let _ = std::fs::remove_dir_all(c.dir());
    }

    #[test]
    fn concurrent_writers_all_succeed() {
        let c = Cache::open(scratch("concurrent")).unwrap();
        let k = CacheKey::new(&[b"shared"]);
        let payload: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..10 {
                        c.put(&k, &payload).unwrap();
                        let got = c.get(&k).expect("a whole entry");
                        assert_eq!(got, payload);
                    }
                });
            }
        });
        let left: Vec<_> = std::fs::read_dir(c.dir()).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "temporary files left behind");
        let _ = std::fs::remove_dir_all(c.dir());
    }

    #[test]
    fn ptx_artifacts_round_trip() {
        let a = weft_backend_ptx::PtxArtifact {
            ptx: "// ptx\n.version 7.0\n".into(),
            kernels: vec![weft_backend_ptx::PtxKernelInfo {
                name: "k".into(),
                entry_symbol: "weft_k".into(),
                param_size: 88,
            }],
        };
        let b = decode_ptx(&encode_ptx(&a)).unwrap();
        assert_eq!(b.ptx, a.ptx);
        assert_eq!(b.kernels, a.kernels);
        assert!(decode_ptx(b"kernel k\nptx\n").is_none());
    }
}
