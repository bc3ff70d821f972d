//! # weft-cache — the on-disk compile cache
//!
//! A [`Cache`] is a directory of entries, each one file named
//! `<kind>-<hex>`: the artifact kind (`ptx`, `spirv`, `ir`, ...) and the hex
//! of its [`CacheKey`], a SHA-256 over length-prefixed parts (for PTX: the
//! IR text of the module, which is the source as the backend sees it, the
//! options, the target, the libdevice used), the Weft version and the
//! compiler build ([`build_id`]). The payload is opaque bytes, so the cache
//! serves any artifact: the facade's optimized IR text, and the runtime's
//! PTX and SPIR-V (`weft_runtime::cached`). The cache knows no artifact
//! type: each user encodes its own payload.
//!
//! # Entry format
//!
//! `WEFTCACHE1` magic (10 bytes), payload length (u64 LE), SHA-256 of the
//! payload (32 bytes), payload. An entry is written to a unique temporary
//! file in the same directory and renamed into place, so readers see either
//! no entry or a whole one, and concurrent writers of one key each succeed
//! (the last rename wins; all wrote the same bytes). On load, magic, length
//! and checksum are verified ([`decode_entry`]): a corrupt or truncated entry is reported as
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
        match decode_entry(&bytes) {
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

/// The payload of an entry's bytes (see the module docs for the format),
/// or why the entry is invalid. Never panics, on any input.
pub fn decode_entry(bytes: &[u8]) -> Result<&[u8], String> {
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
}
