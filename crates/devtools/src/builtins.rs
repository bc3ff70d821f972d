//! `weft builtins`: Warp's builtin registry against what Weft compiles.
//!
//! The registry is a snapshot of Warp 1.19's `builtin_functions`
//! (`conformance/registry.json`, written by `conformance/gen/warp_registry.py`):
//! every builtin with every overload Warp registers, each with a *probe*, a
//! small Warp module whose kernel `probe` calls that overload and stores its
//! result. An overload is supported on a backend when its probe compiles
//! there: frontend, passes and verifier for `interp`, and then each device's
//! own compiler (`cpu`, `llvm-cpu`, `vulkan`; PTX for `cuda`, which needs no
//! GPU). That the probes compute Warp's numbers is the conformance cases' job
//! (`conformance/`), not this table's.
//!
//! [`render`] writes `docs/builtins.md`; `weft builtins --check` regenerates
//! it and fails when the committed file differs, so the table cannot go
//! stale.

use rayon::prelude::*;
use serde_json::Value as Json;
use std::fmt::Write as _;
use weft::{Compiler, Device};
use weft_conform::one_line;

/// The backends of the table, in column order.
pub const BACKENDS: [&str; 5] = ["interp", "cpu", "llvm-cpu", "cuda", "vulkan"];

/// One overload of the registry.
#[derive(Clone, Debug)]
pub struct Overload {
    pub sig: String,
    /// The probe module, or why there is none (a tile or indexed-array
    /// argument, a form Warp itself rejects).
    pub probe: Result<String, String>,
}

/// One builtin of the registry.
#[derive(Clone, Debug)]
pub struct Builtin {
    pub name: String,
    pub group: String,
    /// The language construct Warp lowers to this builtin (`v[i]` for
    /// `extract`), if it is one.
    pub construct: Option<String>,
    pub overloads: Vec<Overload>,
}

/// The registry snapshot.
#[derive(Clone, Debug)]
pub struct Registry {
    pub warp_version: String,
    pub builtins: Vec<Builtin>,
    /// Out-of-scope builtins (tiles, geometry, volumes, textures).
    pub out_of_scope: Vec<(String, String)>,
}

fn s(j: &Json, key: &str) -> String {
    j.get(key).and_then(Json::as_str).unwrap_or("").to_string()
}

impl Registry {
    /// Parses `registry.json`.
    pub fn parse(text: &str) -> Result<Registry, String> {
        let j: Json = serde_json::from_str(text).map_err(|e| format!("registry: {e}"))?;
        let arr = |k: &str| {
            j.get(k)
                .and_then(Json::as_array)
                .ok_or_else(|| format!("registry: no `{k}` list"))
        };
        let mut builtins = Vec::new();
        for b in arr("builtins")? {
            let overloads = b
                .get("overloads")
                .and_then(Json::as_array)
                .map(|os| {
                    os.iter()
                        .map(|o| Overload {
                            sig: s(o, "sig"),
                            probe: match o.get("probe").and_then(Json::as_str) {
                                Some(p) => Ok(p.to_string()),
                                None => Err(s(o, "skip")),
                            },
                        })
                        .collect()
                })
                .unwrap_or_default();
            builtins.push(Builtin {
                name: s(b, "name"),
                group: s(b, "group"),
                construct: b
                    .get("construct")
                    .and_then(Json::as_str)
                    .map(str::to_string),
                overloads,
            });
        }
        let out_of_scope = arr("out_of_scope")?
            .iter()
            .map(|b| (s(b, "name"), s(b, "group")))
            .collect();
        Ok(Registry {
            warp_version: s(&j, "warp_version"),
            builtins,
            out_of_scope,
        })
    }
}

/// Whether a probe compiles on one backend: `Ok` or the first line of the
/// error.
pub type Support = Result<(), String>;

/// The backends this build and machine can compile for: each name with
/// its device (`None` for `cuda`, compiled to PTX without a device) or why
/// it is unavailable.
pub fn open_backends() -> Vec<(&'static str, Result<Option<Device>, String>)> {
    BACKENDS
        .iter()
        .map(|&n| {
            let d = if n == "cuda" {
                if cfg!(feature = "llvm") {
                    Ok(None)
                } else {
                    Err("needs the `llvm` feature".to_string())
                }
            } else {
                Device::open(n).map(Some).map_err(|e| one_line(&e.into()))
            };
            (n, d)
        })
        .collect()
}

#[cfg(feature = "llvm")]
fn ptx(m: &weft::Module) -> Result<(), weft::Error> {
    m.ptx(&weft::PtxOptions::default()).map(|_| ())
}

#[cfg(not(feature = "llvm"))]
fn ptx(_: &weft::Module) -> Result<(), weft::Error> {
    Err(weft::Error::NotCompiled {
        what: "PTX".into(),
        feature: "llvm",
    })
}

/// Compiles one probe on every backend of `backends`, in their order
/// (`None` where the backend is unavailable).
pub fn probe(
    src: &str,
    backends: &[(&'static str, Result<Option<Device>, String>)],
) -> Vec<Option<Support>> {
    let err = |e: weft::Error| one_line(&e.into());
    let module = Compiler::new().compile("probe.py", src).map_err(err);
    backends
        .iter()
        .map(|(name, dev)| {
            let dev = dev.as_ref().ok()?;
            let m = match &module {
                Ok(m) => m,
                Err(e) => return Some(Err(e.clone())),
            };
            Some(match (dev, *name) {
                (None, "cuda") => ptx(m).map_err(err),
                (Some(d), _) => d.load(m, "probe").map(|_| ()).map_err(err),
                (None, _) => Err("no device".into()),
            })
        })
        .collect()
}

/// Per backend of one probed overload: `None` where the backend is not
/// available.
pub type ProbeResult = Vec<Option<Support>>;

/// The support of every overload of the registry: `[builtin][overload][backend]`.
pub fn survey(
    reg: &Registry,
    backends: &[(&'static str, Result<Option<Device>, String>)],
) -> Vec<Vec<Option<ProbeResult>>> {
    let jobs: Vec<(usize, usize)> = reg
        .builtins
        .iter()
        .enumerate()
        .flat_map(|(i, b)| (0..b.overloads.len()).map(move |k| (i, k)))
        .collect();
    let results: Vec<((usize, usize), Option<ProbeResult>)> = jobs
        .par_iter()
        .map(|&(i, k)| {
            let o = &reg.builtins[i].overloads[k];
            ((i, k), o.probe.as_ref().ok().map(|p| probe(p, backends)))
        })
        .collect();
    let mut out: Vec<Vec<Option<ProbeResult>>> = reg
        .builtins
        .iter()
        .map(|b| vec![None; b.overloads.len()])
        .collect();
    for ((i, k), r) in results {
        out[i][k] = r;
    }
    out
}

/// Per backend: (builtins fully supported, builtins with a probe,
/// overloads supported, overloads with a probe).
pub fn counts(
    reg: &Registry,
    survey: &[Vec<Option<Vec<Option<Support>>>>],
    backend: usize,
) -> (usize, usize, usize, usize) {
    let (mut bs, mut bn, mut os, mut on) = (0, 0, 0, 0);
    for (b, rows) in reg.builtins.iter().zip(survey) {
        let probed: Vec<&Vec<Option<Support>>> = rows.iter().flatten().collect();
        if probed.is_empty() {
            continue;
        }
        let _ = b;
        bn += 1;
        on += probed.len();
        let ok = probed
            .iter()
            .filter(|r| matches!(r.get(backend), Some(Some(Ok(())))))
            .count();
        os += ok;
        if ok == probed.len() {
            bs += 1;
        }
    }
    (bs, bn, os, on)
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// `docs/builtins.md`.
pub fn render(
    reg: &Registry,
    backends: &[(&'static str, Result<Option<Device>, String>)],
    survey: &[Vec<Option<Vec<Option<Support>>>>],
) -> String {
    let mut o = String::new();
    let names: Vec<&str> = backends.iter().map(|b| b.0).collect();
    let _ = writeln!(o, "# Warp's builtins in Weft\n");
    let _ = writeln!(
        o,
        concat!(
            "Generated by `weft builtins` from `conformance/registry.json`, the snapshot of ",
            "Warp {}'s builtin registry (`conformance/gen/warp_registry.py`); do not edit: ",
            "`scripts/builtins.sh` runs `weft builtins --check`, and CI checks that every ",
            "builtin of the registry has its row (`tests/builtins_doc.rs`).\n"
        ),
        reg.warp_version
    );
    let _ = writeln!(
        o,
        concat!(
            "Every overload Warp registers has a *probe*, a kernel that calls it and stores ",
            "the result (generic types instantiated as float32, int32, length 3, 3x3; ",
            "builtins that are language constructs are probed through the construct). ",
            "An overload is supported on a backend when its probe compiles there ",
            "(interp: frontend, passes and verifier; cuda: PTX). The conformance cases ",
            "under `conformance/` check that the results are Warp's. A builtin counts as ",
            "supported when all its probed overloads are.\n"
        )
    );
    let _ = writeln!(o, "## Summary\n");
    let _ = writeln!(o, "| backend | builtins | overloads |");
    let _ = writeln!(o, "|---|---|---|");
    for (k, (n, d)) in backends.iter().enumerate() {
        if let Err(e) = d {
            let _ = writeln!(o, "| {n} | not available: {} | |", md_escape(e));
            continue;
        }
        let (bs, bn, os, on) = counts(reg, survey, k);
        let _ = writeln!(
            o,
            "| {n} | {bs} of {bn} ({:.1}%) | {os} of {on} ({:.1}%) |",
            100.0 * bs as f64 / bn.max(1) as f64,
            100.0 * os as f64 / on.max(1) as f64
        );
    }
    let total: usize = reg.builtins.iter().map(|b| b.overloads.len()).sum();
    let unprobed: Vec<(&str, &str)> = reg
        .builtins
        .iter()
        .flat_map(|b| {
            b.overloads.iter().filter_map(move |ov| {
                ov.probe
                    .as_ref()
                    .err()
                    .map(|e| (b.name.as_str(), e.as_str()))
            })
        })
        .collect();
    let _ = writeln!(
        o,
        concat!(
            "\n{} builtins and {} overloads in scope; {} overloads have no probe (below); ",
            "{} builtins of tiles, geometry, volumes and textures are out of scope.\n"
        ),
        reg.builtins.len(),
        total,
        unprobed.len(),
        reg.out_of_scope.len()
    );
    let _ = writeln!(o, "## By builtin\n");
    let _ = write!(o, "| builtin | group | overloads |");
    for n in &names {
        let _ = write!(o, " {n} |");
    }
    let _ = writeln!(o);
    let _ = writeln!(o, "|---|---|---|{}", "---|".repeat(names.len()));
    for (b, rows) in reg.builtins.iter().zip(survey) {
        let probed: Vec<&Vec<Option<Support>>> = rows.iter().flatten().collect();
        let name = match &b.construct {
            Some(c) => format!("`{}` (`{}`)", b.name, md_escape(c)),
            None => format!("`{}`", b.name),
        };
        let _ = write!(
            o,
            "| {name} | {} | {} |",
            b.group,
            if probed.len() == b.overloads.len() {
                format!("{}", probed.len())
            } else {
                format!("{} ({} probed)", b.overloads.len(), probed.len())
            }
        );
        for (k, (_, dev)) in backends.iter().enumerate() {
            if dev.is_err() {
                let _ = write!(o, " ? |");
                continue;
            }
            let ok = probed
                .iter()
                .filter(|r| matches!(r.get(k), Some(Some(Ok(())))))
                .count();
            let cell = if probed.is_empty() {
                "—".to_string()
            } else if ok == probed.len() {
                "✓".to_string()
            } else if ok == 0 {
                "✗".to_string()
            } else {
                format!("{ok}/{}", probed.len())
            };
            let _ = write!(o, " {cell} |");
        }
        let _ = writeln!(o);
    }
    let _ = writeln!(o, "\n## Overloads that do not compile\n");
    let _ = writeln!(
        o,
        "Each with the backends where its probe fails and the first line of the error.\n"
    );
    let mut any = false;
    for (b, rows) in reg.builtins.iter().zip(survey) {
        for (ov, r) in b.overloads.iter().zip(rows) {
            let Some(r) = r else { continue };
            let fails: Vec<(usize, &String)> = r
                .iter()
                .enumerate()
                .filter_map(|(k, s)| match s {
                    Some(Err(e)) => Some((k, e)),
                    _ => None,
                })
                .collect();
            if fails.is_empty() {
                continue;
            }
            any = true;
            let all = fails.len() == r.iter().filter(|s| s.is_some()).count();
            let first = fails[0].1;
            let same = fails.iter().all(|(_, e)| *e == first);
            if all && same {
                let _ = writeln!(o, "* `{}` (all): {}", md_escape(&ov.sig), md_escape(first));
            } else {
                let _ = writeln!(o, "* `{}`:", md_escape(&ov.sig));
                for (k, e) in fails {
                    let _ = writeln!(o, "  * {}: {}", names[k], md_escape(e));
                }
            }
        }
    }
    if !any {
        let _ = writeln!(o, "None.");
    }
    let _ = writeln!(o, "\n## Overloads without a probe\n");
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for (name, why) in unprobed {
        match groups.iter_mut().find(|g| g.0 == why) {
            Some(g) => {
                if !g.1.contains(&name) {
                    g.1.push(name)
                }
            }
            None => groups.push((why.to_string(), vec![name])),
        }
    }
    for (why, names) in groups {
        let _ = writeln!(o, "* {}: {}", md_escape(&why), names.join(", "));
    }
    let _ = writeln!(o, "\n## Out of scope\n");
    let mut by_group: Vec<(String, Vec<&str>)> = Vec::new();
    for (n, g) in &reg.out_of_scope {
        match by_group.iter_mut().find(|x| &x.0 == g) {
            Some(x) => x.1.push(n),
            None => by_group.push((g.clone(), vec![n])),
        }
    }
    for (g, ns) in by_group {
        let _ = writeln!(o, "* {g}: {}", ns.join(", "));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    const REG: &str = r#"{"warp_version": "1.19.0",
      "builtins": [
        {"name": "sin", "group": "Scalar Math", "construct": null, "overloads": [
          {"sig": "sin(x: float32)", "probe": "import warp as wp\n@wp.kernel\ndef probe(a0: float, out0: wp.array(dtype=float)):\n    out0[0] = wp.sin(a0)\n"},
          {"sig": "sin(x: vec3f)", "probe": "import warp as wp\n@wp.kernel\ndef probe(a0: wp.vec3, out0: wp.array(dtype=wp.vec3)):\n    out0[0] = wp.sin(a0)\n"},
          {"sig": "sin(x: tile)", "skip": "tile argument"}]}],
      "out_of_scope": [{"name": "tile_sum", "group": "Tile Primitives"}]}"#;

    #[test]
    fn parses_probes_and_counts() {
        let reg = Registry::parse(REG).unwrap();
        assert_eq!(reg.builtins[0].overloads.len(), 3);
        assert!(reg.builtins[0].overloads[2].probe.is_err());
        let backends = vec![(
            "interp",
            Device::open("interp").map(Some).map_err(|_| String::new()),
        )];
        let sv = survey(&reg, &backends);
        // sin(float32) compiles; Warp has no vector `sin`, and neither do we.
        assert!(matches!(sv[0][0].as_ref().unwrap()[0], Some(Ok(()))));
        assert!(matches!(sv[0][1].as_ref().unwrap()[0], Some(Err(_))));
        assert!(sv[0][2].is_none());
        assert_eq!(counts(&reg, &sv, 0), (0, 1, 1, 2));
        let md = render(&reg, &backends, &sv);
        assert!(
            md.contains("| `sin` | Scalar Math | 3 (2 probed) | 1/2 |"),
            "{md}"
        );
        assert!(md.contains("* tile argument: sin"));
        assert!(md.contains("* Tile Primitives: tile_sum"));
    }
}
