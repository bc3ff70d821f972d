//! The prelude, split into its top-level items so that only the funcs a
//! program calls are ever parsed.
//!
//! The prelude is large (every builtin with a formula, for every float
//! type) while a kernel calls a handful of them, and parsing dominates a cold
//! compile. [`PreludeIndex::get`] scans the text once per process for
//! top-level items: each `@wp.func` definition becomes a chunk, indexed by
//! name, parsed on first use (with its byte offsets into the whole prelude,
//! so locations stay right); other items (imports) are parsed at once. If the
//! text does not split cleanly, the whole prelude is parsed eagerly instead.

use ruff_python_ast::{Stmt, StmtFunctionDef};
use ruff_python_parser::{parse_cells_unchecked, Mode, ParseOptions};
use ruff_text_size::{TextRange, TextSize};
use std::collections::HashMap;
use std::sync::OnceLock;

pub(crate) struct PreludeIndex {
    pub src: &'static str,
    /// Module-level statements parsed eagerly (imports; everything when the
    /// text did not split cleanly).
    pub eager: Vec<Stmt>,
    chunks: Vec<TextRange>,
    by_name: HashMap<String, Vec<usize>>,
    parsed: Vec<OnceLock<Option<StmtFunctionDef>>>,
}

fn parse_range(src: &str, r: TextRange) -> Option<Vec<Stmt>> {
    let parsed = parse_cells_unchecked(src, [r], &ParseOptions::from(Mode::Module));
    if !parsed.errors().is_empty() {
        return None;
    }
    Some(parsed.into_syntax().body.into_iter().collect())
}

/// Splits `src` into top-level items: a line that starts in column 0 with
/// anything but a comment or a closing bracket starts a new item, except
/// that decorators stay with the definition that follows them.
fn split(src: &str) -> Vec<TextRange> {
    let mut items = Vec::new();
    let mut start: Option<usize> = None;
    let mut decorators_only = false;
    let mut off = 0usize;
    for line in src.split_inclusive('\n') {
        let first = line.chars().next().unwrap_or(' ');
        let blank = line.trim().is_empty();
        let continuation = blank || first.is_whitespace() || matches!(first, '#' | ')' | ']' | '}');
        if !continuation {
            if start.is_some() && decorators_only {
                decorators_only = first == '@';
            } else {
                if let Some(s) = start {
                    items.push(TextRange::new(
                        TextSize::new(s as u32),
                        TextSize::new(off as u32),
                    ));
                }
                start = Some(off);
                decorators_only = first == '@';
            }
        }
        off += line.len();
    }
    if let Some(s) = start {
        items.push(TextRange::new(
            TextSize::new(s as u32),
            TextSize::new(off as u32),
        ));
    }
    items
}

/// The name defined by a chunk `[@decorators] def name(...)`.
fn def_name(text: &str) -> Option<&str> {
    let line = text.lines().find(|l| l.starts_with("def "))?;
    let rest = line["def ".len()..].trim_start();
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    (end > 0).then(|| &rest[..end])
}

impl PreludeIndex {
    /// The process-wide index of the builtins' prelude.
    pub(crate) fn get() -> &'static PreludeIndex {
        static INDEX: OnceLock<PreludeIndex> = OnceLock::new();
        INDEX.get_or_init(|| PreludeIndex::new(crate::builtins::prelude_source()))
    }

    fn new(src: &'static str) -> PreludeIndex {
        let mut eager = Vec::new();
        let mut chunks = Vec::new();
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        let mut clean = src.len() < u32::MAX as usize;
        for r in split(src) {
            if !clean {
                break;
            }
            let text = &src[usize::from(r.start())..usize::from(r.end())];
            let is_func = text.starts_with("@") && text.contains("@wp.func");
            match (is_func, def_name(text)) {
                (true, Some(name)) => {
                    by_name
                        .entry(name.to_string())
                        .or_default()
                        .push(chunks.len());
                    chunks.push(r);
                }
                _ => match parse_range(src, r) {
                    Some(stmts) => eager.extend(stmts),
                    None => clean = false,
                },
            }
        }
        if !clean {
            // Parse everything now; the lowering reports any error.
            let body = ruff_python_parser::parse_module(src)
                .map(|p| p.into_syntax().body.into_iter().collect())
                .unwrap_or_default();
            return PreludeIndex {
                src,
                eager: body,
                chunks: Vec::new(),
                by_name: HashMap::new(),
                parsed: Vec::new(),
            };
        }
        let parsed = chunks.iter().map(|_| OnceLock::new()).collect();
        PreludeIndex {
            src,
            eager,
            chunks,
            by_name,
            parsed,
        }
    }

    pub(crate) fn has(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// The definitions of `name` (one per overload), parsed on first use,
    /// with their chunk numbers. A chunk that does not parse as one func
    /// definition is left out.
    pub(crate) fn defs(&'static self, name: &str) -> Vec<(usize, &'static StmtFunctionDef)> {
        let Some(ids) = self.by_name.get(name) else {
            return Vec::new();
        };
        ids.iter()
            .filter_map(|&i| {
                let def = self.parsed[i].get_or_init(|| {
                    match parse_range(self.src, self.chunks[i])?.pop() {
                        Some(Stmt::FunctionDef(f)) => Some(f),
                        _ => None,
                    }
                });
                def.as_ref().map(|d| (i, d))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_items_and_keeps_decorators_with_defs() {
        let src = "import warp as wp\n\n# @float\n@wp.func\ndef f(a: float,\n      b: float):\n    # c\n    return a\n\n\n@wp.func\ndef g(x: int) -> int:\n    return x\n";
        let items = split(src);
        let texts: Vec<&str> = items
            .iter()
            .map(|r| &src[usize::from(r.start())..usize::from(r.end())])
            .collect();
        assert_eq!(texts.len(), 3);
        assert!(texts[0].starts_with("import warp"));
        assert!(texts[1].starts_with("@wp.func\ndef f("));
        assert_eq!(def_name(texts[1]), Some("f"));
        assert_eq!(def_name(texts[2]), Some("g"));
        let f = parse_range(src, items[1]).expect("parses");
        assert!(matches!(&f[..], [Stmt::FunctionDef(d)] if d.name.id.as_str() == "f"));
    }

    #[test]
    fn lazily_parsed_funcs_have_prelude_locations() {
        let src = "import warp as wp\n\n@wp.kernel\ndef k(v: wp.array(dtype=wp.vec3), o: wp.array(dtype=float)):\n    i = wp.tid()\n    o[i] = wp.length(v[i])\n";
        let m = crate::compile("k.py", src).expect("compiles");
        assert_eq!(m.files[1], crate::PRELUDE_FILE);
        let prelude: Vec<&str> = PreludeIndex::get().src.lines().collect();
        let mut seen = 0;
        for (_, f) in m
            .funcs
            .iter()
            .filter(|(_, f)| f.name.starts_with("__weft_"))
        {
            assert_eq!(f.loc.file, 1);
            let line = prelude[f.loc.line as usize - 1];
            let base = f.name.split("__").nth(1).unwrap_or_default();
            assert!(
                line.contains(&format!("def __{base}")),
                "{}: {line}",
                f.name
            );
            assert!(f
                .insts
                .values()
                .all(|i| i.loc.file == 1 && i.loc.line >= f.loc.line));
            seen += 1;
        }
        assert!(seen > 0, "wp.length calls the prelude");
    }

    #[test]
    fn every_prelude_func_parses_alone() {
        let p = PreludeIndex::get();
        assert!(!p.chunks.is_empty(), "the prelude splits into chunks");
        let names: Vec<String> = p.by_name.keys().cloned().collect();
        for n in names {
            let defs = p.defs(&n);
            assert_eq!(defs.len(), p.by_name[&n].len(), "{n}");
        }
    }
}
