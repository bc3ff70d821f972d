//! The on-disk compile cache.
//!
//! A [`Cache`] is a directory of entries, each one file named
//! `<kind>-<hex>`: the artifact kind (`ptx`, `spirv`, `ir`, ...) and the hex
//! of its [`CacheKey`], a SHA-256 over length-prefixed parts (for PTX: the
//! IR text of the module, which is the source as the backend sees it, the
//! options, the target, the libdevice used), the Weft version and the
//! compiler build ([`build_id`]). The payload is opaque bytes, so the cache
//! serves any artifact: PTX ([`ptx_cached`]), SPIR-V compiled from HLSL
//! ([`spirv_cached`]), and the facade's optimized IR text.
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
//! `~/.cache/weft` ([`default_dir`]); [`Cache::open_default`] uses its
//! subdirectory `v<weft version>` ([`versioned_dir`]), so two Weft versions
//! never share entries. [`Cache::info`] counts entries and bytes per kind;
//! [`Cache::clear`] removes them.

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

/// A 256-bit cache key and the kind of artifact it names.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey {
    kind: &'static str,
    hash: [u8; 32],
}

/// Identifies the running compiler build: the size and modification time
/// of the executable (so a rebuilt compiler never reads its predecessor's
/// artifacts, even at the same version), or empty if unknown.
pub fn build_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let Ok(md) = std::env::current_exe().and_then(std::fs::metadata) else {
            return String::new();
        };
        let mtime = md
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        format!("{}:{mtime}", md.len())
    })
}

impl CacheKey {
    /// The key of `parts` (each length-prefixed, so part boundaries count),
    /// the Weft version and [`build_id`], of kind `data`.
    pub fn new(parts: &[&[u8]]) -> CacheKey {
        CacheKey::of_kind("data", parts)
    }
    /// [`CacheKey::new`] for an artifact of `kind` (a short lower-case
    /// word: `ptx`, `spirv`, `ir`; it names the entry and is hashed too).
    pub fn of_kind(kind: &'static str, parts: &[&[u8]]) -> CacheKey {
        let mut h = Sha256::new();
        let version = env!("CARGO_PKG_VERSION").as_bytes();
        let head = [version, build_id().as_bytes(), kind.as_bytes()];
        for p in head.into_iter().chain(parts.iter().copied()) {
            h.update((p.len() as u64).to_le_bytes());
            h.update(p);
        }
        CacheKey {
            kind,
            hash: h.finalize().into(),
        }
    }
    pub fn kind(&self) -> &'static str {
        self.kind
    }
    /// Lower-case hex of the hash.
    pub fn hex(&self) -> String {
        self.hash.iter().map(|b| format!("{b:02x}")).collect()
    }
    /// The entry's file name: `<kind>-<hex>`.
    pub fn file_name(&self) -> String {
        format!("{}-{}", self.kind, self.hex())
    }
}

/// Entries and bytes of one kind of artifact ([`Cache::info`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KindInfo {
    pub kind: String,
    pub entries: usize,
    pub bytes: u64,
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

/// [`default_dir`]`/v<weft version>`: where [`Cache::open_default`] keeps
/// its entries.
pub fn versioned_dir() -> Option<PathBuf> {
    default_dir().map(|d| d.join(concat!("v", env!("CARGO_PKG_VERSION"))))
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
    /// Opens the cache at [`versioned_dir`].
    pub fn open_default() -> Result<Cache, CacheError> {
        Cache::open(versioned_dir().ok_or(CacheError::NoDir)?)
    }
    pub fn dir(&self) -> &Path {
        &self.dir
    }
    /// The file of `key`'s entry.
    pub fn entry_path(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(key.file_name())
    }
    fn path(&self, key: &CacheKey) -> PathBuf {
        self.entry_path(key)
    }

    /// The entries (not temporary files), as (kind, path, size).
    fn entries(&self) -> Result<Vec<(String, PathBuf, u64)>, CacheError> {
        let io = |source| CacheError::Io {
            path: self.dir.clone(),
            source,
        };
        let mut out = Vec::new();
        for e in std::fs::read_dir(&self.dir).map_err(io)? {
            let e = e.map_err(io)?;
            let name = e.file_name().to_string_lossy().into_owned();
            let Some((kind, hex)) = name.rsplit_once('-') else {
                continue;
            };
            if name.starts_with('.') || hex.len() != 64 {
                continue;
            }
            let size = e.metadata().map_or(0, |m| m.len());
            out.push((kind.to_string(), e.path(), size));
        }
        Ok(out)
    }

    /// Entries and bytes per kind, sorted by kind.
    pub fn info(&self) -> Result<Vec<KindInfo>, CacheError> {
        let mut kinds: Vec<KindInfo> = Vec::new();
        for (kind, _, size) in self.entries()? {
            match kinds.iter_mut().find(|k| k.kind == kind) {
                Some(k) => {
                    k.entries += 1;
                    k.bytes += size;
                }
                None => kinds.push(KindInfo {
                    kind,
                    entries: 1,
                    bytes: size,
                }),
            }
        }
        kinds.sort_by(|a, b| a.kind.cmp(&b.kind));
        Ok(kinds)
    }

    /// Removes every entry; returns how many were removed.
    pub fn clear(&self) -> Result<usize, CacheError> {
        let mut n = 0;
        for (_, path, _) in self.entries()? {
            match std::fs::remove_file(&path) {
                Ok(()) => n += 1,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(CacheError::Io { path, source }),
            }
        }
        Ok(n)
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
            key.file_name(),
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
    CacheKey::of_kind(
        "ptx",
        &[
            b"nvptx64-nvidia-cuda",
            ir.as_bytes(),
            opts.as_bytes(),
            libdevice.as_bytes(),
        ],
    )
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

// ---- SPIR-V (the Vulkan device's shaders) ----

/// The cache key of the SPIR-V compiled from `art`'s HLSL: the HLSL text,
/// entry point and group size, the target and the glslang found.
pub fn spirv_key(art: &weft_backend_hlsl::HlslArtifact) -> CacheKey {
    let glslang = weft_backend_hlsl::find_glslang()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    CacheKey::of_kind(
        "spirv",
        &[
            b"spirv-vulkan1.1-hlsl",
            art.source.as_bytes(),
            art.entry.as_bytes(),
            &art.group_size.to_le_bytes(),
            glslang.as_bytes(),
        ],
    )
}

/// [`weft_backend_hlsl::compile_spirv`] through the default cache
/// (uncached if it cannot be opened); the flag says whether it was a hit.
/// The Vulkan device's hook: call it where it calls `compile_spirv`.
pub fn spirv_cached(
    art: &weft_backend_hlsl::HlslArtifact,
) -> Result<(Vec<u32>, bool), weft_backend_hlsl::HlslError> {
    match Cache::open_default() {
        Ok(cache) => spirv_cached_in(&cache, art),
        Err(_) => Ok((weft_backend_hlsl::compile_spirv(art)?, false)),
    }
}

/// [`spirv_cached`] with an explicit cache. An entry that is not whole
/// SPIR-V words starting with the SPIR-V magic number is rebuilt.
pub fn spirv_cached_in(
    cache: &Cache,
    art: &weft_backend_hlsl::HlslArtifact,
) -> Result<(Vec<u32>, bool), weft_backend_hlsl::HlslError> {
    let key = spirv_key(art);
    if let Some(words) = cache.get(&key).as_deref().and_then(decode_spirv) {
        return Ok((words, true));
    }
    let words = weft_backend_hlsl::compile_spirv(art)?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let _ = cache.put(&key, &bytes);
    Ok((words, false))
}

fn decode_spirv(b: &[u8]) -> Option<Vec<u32>> {
    const SPIRV_MAGIC: u32 = 0x0723_0203;
    if !b.len().is_multiple_of(4) || b.len() < 20 {
        return None;
    }
    let words: Vec<u32> = b
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    (words[0] == SPIRV_MAGIC).then_some(words)
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
        let path = c.entry_path(&k);
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
    fn info_counts_kinds_and_clear_removes_entries() {
        let c = Cache::open(scratch("info")).unwrap();
        c.put(&CacheKey::of_kind("ptx", &[b"a"]), b"12345").unwrap();
        c.put(&CacheKey::of_kind("ptx", &[b"b"]), b"123").unwrap();
        c.put(&CacheKey::of_kind("ir", &[b"a"]), b"1").unwrap();
        assert_ne!(
            CacheKey::of_kind("ptx", &[b"a"]),
            CacheKey::of_kind("ir", &[b"a"])
        );
        std::fs::write(c.dir().join("unrelated.txt"), b"x").unwrap();
        let info = c.info().unwrap();
        let kinds: Vec<_> = info.iter().map(|k| (k.kind.as_str(), k.entries)).collect();
        assert_eq!(kinds, vec![("ir", 1), ("ptx", 2)]);
        let h = HEADER as u64;
        assert_eq!(info[1].bytes, 2 * h + 8);
        assert_eq!(c.clear().unwrap(), 3);
        assert!(c.info().unwrap().is_empty());
        assert!(c.dir().join("unrelated.txt").exists());
        let _ = std::fs::remove_dir_all(c.dir());
    }

    #[test]
    fn spirv_entries_must_look_like_spirv() {
        let mut ok = vec![0x0723_0203u32.to_le_bytes()];
        ok.extend([[0u8; 4]; 4]);
        let ok: Vec<u8> = ok.concat();
        assert_eq!(decode_spirv(&ok).map(|w| w.len()), Some(5));
        assert!(decode_spirv(&ok[..19]).is_none());
        let mut bad = ok.clone();
        bad[0] ^= 1;
        assert!(decode_spirv(&bad).is_none());
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
