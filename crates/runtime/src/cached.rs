//! Device code through the compile cache ([`weft_cache`]): PTX for `cuda`
//! and SPIR-V for `vulkan`, each keyed by everything its bytes depend on,
//! with its payload format. A miss, a corrupt entry or a payload that does
//! not decode is compiled again (and stored); a failed store only costs
//! time later.

use weft_cache::{Cache, CacheKey};

/// `build`'s artifact through `cache` under `key` (`None`: no cache):
/// `decode` of a hit, else `build`, stored by `encode`. The flag says
/// whether it was a hit.
fn through<A, E>(
    cache: Option<&Cache>,
    key: impl FnOnce() -> CacheKey,
    decode: impl FnOnce(&[u8]) -> Option<A>,
    encode: impl FnOnce(&A) -> Vec<u8>,
    build: impl FnOnce() -> Result<A, E>,
) -> Result<(A, bool), E> {
    let Some(cache) = cache else {
        return Ok((build()?, false));
    };
    let key = key();
    if let Some(a) = cache.get(&key).as_deref().and_then(decode) {
        return Ok((a, true));
    }
    let a = build()?;
    let _ = cache.put(&key, &encode(&a));
    Ok((a, false))
}

// ---- SPIR-V (the Vulkan device's shaders) ----

/// The cache key of the SPIR-V compiled from `art`'s HLSL: the HLSL text,
/// entry point and group size, the target and the glslang found.
pub fn spirv_key(art: &weft_backend_hlsl::Shader) -> CacheKey {
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

/// [`weft_backend_hlsl::compile_spirv`] through `cache`; the flag says
/// whether it was a hit. An entry that is not whole SPIR-V words starting
/// with the SPIR-V magic number is rebuilt.
pub fn spirv(
    cache: Option<&Cache>,
    art: &weft_backend_hlsl::Shader,
) -> Result<(Vec<u32>, bool), weft_backend_hlsl::Error> {
    through(
        cache,
        || spirv_key(art),
        decode_spirv,
        |words| words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        || weft_backend_hlsl::compile_spirv(art),
    )
}

/// The SPIR-V words of a cache payload: whole little-endian words, at
/// least a header's worth, starting with the SPIR-V magic number; `None`
/// for anything else (never panics; fuzzed by `weft_devtools::fuzz`).
pub fn decode_spirv(b: &[u8]) -> Option<Vec<u32>> {
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

// ---- PTX ----

#[cfg(feature = "llvm")]
pub use ptx::{ptx, ptx_key};

#[cfg(feature = "llvm")]
mod ptx {
    use super::through;
    use weft_backend_llvm::{Artifact, Error, Kernel, Options};
    use weft_cache::{Cache, CacheKey};
    use weft_ir::ModuleInfo;

    /// The cache key of `m` compiled to PTX with `opts`: the module's IR
    /// text, the options, the target and the libdevice used.
    pub fn ptx_key(m: &weft_ir::Module, opts: &Options) -> CacheKey {
        let ir = weft_ir::text::print_module(m);
        let libdevice = weft_backend_llvm::find_libdevice(opts.libdevice.as_deref())
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

    /// [`weft_backend_llvm::compile`] through `cache`; the flag says
    /// whether it was a hit.
    pub fn ptx(
        cache: Option<&Cache>,
        m: &weft_ir::Module,
        info: &ModuleInfo,
        opts: &Options,
    ) -> Result<(Artifact, bool), Error> {
        through(
            cache,
            || ptx_key(m, opts),
            |b| decode(b, info),
            encode,
            || weft_backend_llvm::compile(m, info, opts),
        )
    }

    /// One `kernel NAME SYMBOL PARAM_SIZE` line per kernel, a `ptx` line,
    /// then the PTX text.
    fn encode(a: &Artifact) -> Vec<u8> {
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

    /// The artifact of an entry; whether it has a trap record is the
    /// module's (the key covers the IR).
    fn decode(b: &[u8], info: &ModuleInfo) -> Option<Artifact> {
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
            kernels.push(Kernel {
                name: name.to_string(),
                entry_symbol: sym.to_string(),
                param_size: size.parse().ok()?,
            });
        }
        Some(Artifact {
            ptx: rest.to_string(),
            kernels,
            trap_record: info.has_traps,
        })
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn ptx_artifacts_round_trip() {
            let a = Artifact {
                ptx: "// ptx\n.version 7.0\n".into(),
                kernels: vec![Kernel {
                    name: "k".into(),
                    entry_symbol: "weft_k".into(),
                    param_size: 88,
                }],
                trap_record: false,
            };
            let info = ModuleInfo::default();
            let b = decode(&encode(&a), &info).unwrap();
            assert_eq!(b.ptx, a.ptx);
            assert_eq!(b.kernels, a.kernels);
            assert!(decode(b"kernel k\nptx\n", &info).is_none());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_bad_entry_is_rebuilt_and_stored() {
        let dir = std::env::temp_dir().join(format!("weft-cached-{}", std::process::id()));
        let cache = Cache::open(&dir).unwrap();
        let key = || CacheKey::of_kind("test", &[b"k"]);
        cache.put(&key(), b"not a number").unwrap();
        let parse = |b: &[u8]| std::str::from_utf8(b).ok()?.parse::<u32>().ok();
        let enc = |v: &u32| v.to_string().into_bytes();
        let (v, hit) = through(Some(&cache), key, parse, enc, || Ok::<_, ()>(7)).unwrap();
        assert_eq!((v, hit), (7, false));
        let (v, hit) = through(Some(&cache), key, parse, enc, || Ok::<_, ()>(8)).unwrap();
        assert_eq!((v, hit), (7, true));
        let (v, hit) = through(None, key, parse, enc, || Ok::<_, ()>(9)).unwrap();
        assert_eq!((v, hit), (9, false));
        let _ = std::fs::remove_dir_all(dir);
    }
}
