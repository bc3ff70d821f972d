//! `docs/builtins.md` against `conformance/registry.json`: the table has a
//! row for every builtin of the registry, with its overload count, and
//! names the registry's Warp version, so that a registry update without a
//! regenerated table fails here. Whether the marks are current is the long
//! check `scripts/builtins.sh` (`weft builtins --check`, every backend).

use std::path::Path;
use weft_devtools::builtins::Registry;

#[test]
fn builtins_md_has_a_row_per_registry_builtin() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let reg = Registry::parse(
        &std::fs::read_to_string(root.join("conformance/registry.json")).expect("registry"),
    )
    .expect("registry parses");
    let md = std::fs::read_to_string(root.join("docs/builtins.md")).expect("docs/builtins.md");
    assert!(
        md.contains(&format!("Warp {}'s builtin registry", reg.warp_version)),
        "docs/builtins.md is not for Warp {}: run `weft builtins`",
        reg.warp_version
    );
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| `")).collect();
    let mut missing = Vec::new();
    for b in &reg.builtins {
        let head = format!("| `{}`", b.name);
        let n = b.overloads.len();
        let ok = rows.iter().any(|r| {
            r.starts_with(&head)
                && r[head.len()..].starts_with([' ', '`'])
                && r.split(" | ")
                    .nth(2)
                    .is_some_and(|c| c.split(' ').next() == Some(&n.to_string()))
        });
        if !ok {
            missing.push(format!("{} ({n} overloads)", b.name));
        }
    }
    assert!(
        missing.is_empty(),
        "docs/builtins.md lacks (or has stale rows for): {}; run `weft builtins`",
        missing.join(", ")
    );
    assert_eq!(
        rows.len(),
        reg.builtins.len(),
        "docs/builtins.md has extra rows"
    );
}
