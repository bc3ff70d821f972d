//! The HTML page of `weft compare --html`: one self-contained file (inline
//! CSS and JavaScript, nothing fetched) with the comparison table and the
//! kernel's Python source, Weft IR, PTX, HLSL and Cranelift IR side by side.
//!
//! Every code line that comes from a line of the Python source carries
//! `data-src="<line>"`, taken from each text's own line information:
//!
//! * IR: the `@<file>:<line>:<col>` location of each instruction (file 0,
//!   the kernel file);
//! * PTX: `.loc <file> <line> <col>` directives (the `.file` naming the
//!   kernel file), applying to the lines after them;
//! * HLSL: `#line <line> "<file>"` directives, likewise;
//! * CLIF: the CPU backend emits no source locations, so each function
//!   (`; kernel NAME`) links to its kernel's `def` line.
//!
//! The script marks every Python line that has linked lines (a badge with
//! their count, a tooltip per column); clicking any linked line highlights
//! the lines of that Python line in every column (class `hl`), scrolls each
//! column to the first, records the selection in `body[data-selected]` and
//! the URL fragment `#L<line>`; opening the page with `#L<line>` selects
//! that line.

use crate::compare::{table_rows, Artifacts, Comparison, HEADERS};

/// HTML-escapes text.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// Each line of `text` with the Python line it comes from, if any.
pub type Linked = Vec<(String, Option<u32>)>;

/// The final path component of a file name.
fn base(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// IR lines: the line of a trailing `@0:<line>:<col>` location.
pub fn link_ir(ir: &str) -> Linked {
    ir.lines()
        .map(|l| {
            let src = l.rsplit_once(" @").and_then(|(_, loc)| {
                let mut p = loc.trim_end_matches(" {").split(':');
                match (p.next(), p.next(), p.next()) {
                    (Some("0"), Some(line), Some(col)) if col.parse::<u32>().is_ok() => {
                        line.parse().ok()
                    }
                    _ => None,
                }
            });
            (l.to_string(), src.filter(|&n| n > 0))
        })
        .collect()
}

/// PTX lines: `.loc F L C` sets the line of the instructions after it,
/// when `.file F` names the kernel file (`kernel_file`'s base name).
pub fn link_ptx(ptx: &str, kernel_file: &str) -> Linked {
    let want = base(kernel_file);
    let mut files: Vec<u32> = Vec::new();
    for l in ptx.lines() {
        let t = l.trim_start();
        if let Some(rest) = t.strip_prefix(".file") {
            let mut w = rest.split_whitespace();
            if let (Some(id), Some(name)) = (w.next(), w.next()) {
                let name = name.trim_matches(|c| c == '"' || c == ',');
                if base(name) == want || rest.contains(want) {
                    files.extend(id.parse::<u32>().ok());
                }
            }
        }
    }
    let mut cur = None;
    let mut out = Vec::new();
    for l in ptx.lines() {
        let t = l.trim_start();
        if let Some(rest) = t.strip_prefix(".loc") {
            let mut w = rest.split_whitespace();
            let f = w.next().and_then(|x| x.parse::<u32>().ok());
            let line = w.next().and_then(|x| x.parse::<u32>().ok());
            cur = match (f, line) {
                (Some(f), Some(n)) if files.contains(&f) && n > 0 => Some(n),
                _ => None,
            };
            out.push((l.to_string(), cur));
            continue;
        }
        // Function boundaries end a location's reach.
        if t.starts_with('}') || t.starts_with(".visible") || t.starts_with(".entry") {
            cur = None;
        }
        let code = !t.is_empty() && !t.starts_with("//") && !t.starts_with('.');
        out.push((l.to_string(), if code { cur } else { None }));
    }
    out
}

/// HLSL lines: `#line N "file"` sets the line of the lines after it, when
/// the file is the kernel file.
pub fn link_hlsl(hlsl: &str, kernel_file: &str) -> Linked {
    let want = base(kernel_file);
    let mut cur = None;
    let mut out = Vec::new();
    for l in hlsl.lines() {
        let t = l.trim_start();
        if let Some(rest) = t.strip_prefix("#line") {
            let mut w = rest.split_whitespace();
            let n = w.next().and_then(|x| x.parse::<u32>().ok());
            let file = w.next().map(|f| f.trim_matches('"'));
            cur = match (n, file) {
                (Some(n), Some(f)) if base(f) == want => Some(n),
                (Some(n), None) => Some(n),
                _ => None,
            };
            out.push((l.to_string(), cur));
            continue;
        }
        if t.starts_with("// ---- kernel") {
            cur = None;
        }
        let code = !t.is_empty() && !t.starts_with("//") && t != "{" && t != "}";
        out.push((l.to_string(), if code { cur } else { None }));
    }
    out
}

/// CLIF lines: each function (`; kernel NAME` comment before it) links to
/// the kernel's `def` line, from `kernel_lines` (name, line).
pub fn link_clif(clif: &str, kernel_lines: &[(String, u32)]) -> Linked {
    let mut cur = None;
    clif.lines()
        .map(|l| {
            if let Some(name) = l.trim().strip_prefix("; kernel ") {
                cur = kernel_lines
                    .iter()
                    .find(|(n, _)| n == name.trim())
                    .map(|&(_, line)| line);
            }
            (l.to_string(), if l.trim().is_empty() { None } else { cur })
        })
        .collect()
}

/// The `def` line of each kernel, from the IR text's `kernel @name(...)
/// @0:<line>:<col>` headers.
pub fn kernel_lines(ir: &str) -> Vec<(String, u32)> {
    ir.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("kernel @")?;
            let name = rest.split('(').next()?.to_string();
            let (_, Some(n)) = link_ir(l).pop()? else {
                return None;
            };
            Some((name, n))
        })
        .collect()
}

const CSS: &str = r#"
body{font:14px/1.4 system-ui,sans-serif;margin:0;padding:12px;background:#fafafa;color:#222}
h1{font-size:18px;margin:0 0 8px}
table{border-collapse:collapse;margin:8px 0 16px;background:#fff}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;font-family:ui-monospace,monospace;font-size:12px}
td.pass{color:#070}td.fail{color:#b00;font-weight:bold}td.skip{color:#777}
.cols{display:grid;grid-template-columns:minmax(0,1.4fr) repeat(4,minmax(0,1fr));gap:8px}
section.col{background:#fff;border:1px solid #ccc;display:flex;flex-direction:column;min-width:0}
section.col h2{font-size:13px;margin:0;padding:4px 8px;background:#eee;border-bottom:1px solid #ccc}
.code{margin:0;overflow:auto;max-height:80vh;font:12px/1.35 ui-monospace,monospace;white-space:pre}
.l{display:block;padding:0 6px 0 0;min-height:1.35em}
.l[data-src]{cursor:pointer}
.l[data-src]:hover{background:#eef}
.n{display:inline-block;width:3.5em;color:#999;text-align:right;margin-right:8px;user-select:none}
.l.hl{background:#ffe58a}
.badge{margin-left:8px;padding:0 5px;border-radius:8px;background:#dde;color:#335;font-size:10px}
.note{padding:8px;color:#855;font-style:italic;white-space:normal}
p.help{color:#555;margin:4px 0}
"#;

const JS: &str = r#"
(function(){
  var cols=Array.prototype.slice.call(document.querySelectorAll('section.col'));
  var counts={};
  cols.forEach(function(c){
    if(c.dataset.col==='python')return;
    c.querySelectorAll('.l[data-src]').forEach(function(e){
      var k=e.dataset.src;counts[k]=counts[k]||{};
      counts[k][c.dataset.col]=(counts[k][c.dataset.col]||0)+1;
    });
  });
  document.querySelectorAll('section[data-col="python"] .l').forEach(function(e){
    var c=counts[e.dataset.src];if(!c)return;
    e.classList.add('linked');
    var parts=[],total=0;
    Object.keys(c).forEach(function(k){parts.push(k+': '+c[k]);total+=c[k];});
    e.title=parts.join(', ');
    var b=document.createElement('span');b.className='badge';b.textContent=String(total);
    e.appendChild(b);
  });
  function select(n){
    document.querySelectorAll('.l.hl').forEach(function(e){e.classList.remove('hl');});
    document.querySelectorAll('.l[data-src="'+n+'"]').forEach(function(e){e.classList.add('hl');});
    cols.forEach(function(c){
      var f=c.querySelector('.l[data-src="'+n+'"]');var box=c.querySelector('.code');
      if(f&&box)box.scrollTop=Math.max(0,f.offsetTop-box.offsetTop-40);
    });
    document.body.dataset.selected=n;
  }
  document.addEventListener('click',function(ev){
    var e=ev.target.closest('.l[data-src]');if(!e)return;
    select(e.dataset.src);
    if(history.replaceState)history.replaceState(null,'','#L'+e.dataset.src);
  });
  var m=/^#L(\d+)$/.exec(location.hash);if(m)select(m[1]);
})();
"#;

/// One column: a title and numbered, linked lines (or a note).
fn column(out: &mut String, id: &str, title: &str, body: Result<Linked, String>) {
    out.push_str(&format!(
        "<section class=\"col\" data-col=\"{id}\"><h2>{}</h2>",
        escape(title)
    ));
    match body {
        Err(note) => out.push_str(&format!(
            "<div class=\"note\">not available here: {}</div>",
            escape(&note)
        )),
        Ok(lines) => {
            out.push_str("<pre class=\"code\">");
            for (k, (text, src)) in lines.iter().enumerate() {
                let n = k + 1;
                let attrs = match (id, src) {
                    ("python", _) => format!(" id=\"L{n}\" data-src=\"{n}\""),
                    (_, Some(s)) => format!(" data-src=\"{s}\""),
                    _ => String::new(),
                };
                out.push_str(&format!(
                    "<span class=\"l\"{attrs}><span class=\"n\">{n}</span>{}</span>",
                    escape(text)
                ));
            }
            out.push_str("</pre>");
        }
    }
    out.push_str("</section>");
}

/// The whole page.
pub fn render(c: &Comparison, a: &Artifacts) -> String {
    let kfile = c.case.dir.join("kernel.py").display().to_string();
    let mut o = String::new();
    o.push_str("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">");
    o.push_str(&format!(
        "<title>weft compare: {}</title><style>{CSS}</style></head><body>",
        escape(&c.case.name)
    ));
    o.push_str(&format!("<h1>weft compare: {}</h1>", escape(&c.case.name)));
    o.push_str(&format!("<p class=\"help\">{}</p>", escape(&c.header())));
    o.push_str("<table id=\"results\"><thead><tr>");
    for h in HEADERS {
        o.push_str(&format!("<th>{}</th>", escape(h)));
    }
    o.push_str("</tr></thead><tbody>");
    for r in table_rows(c) {
        o.push_str("<tr>");
        for (k, cell) in r.iter().enumerate() {
            let class = match (k, cell.as_str()) {
                (6, "pass") => " class=\"pass\"",
                (6, s) if s.starts_with("FAIL") => " class=\"fail\"",
                (6, s) if s.starts_with("skipped") || s.starts_with("unsupported") => {
                    " class=\"skip\""
                }
                _ => "",
            };
            o.push_str(&format!("<td{class}>{}</td>", escape(cell)));
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table>");
    o.push_str(&format!(
        "<p class=\"help\">{}. Click a Python line to highlight the lines compiled from it in every column.</p>",
        if c.agree() {
            "All backends that ran agree with the interpreter within the case's tolerance"
        } else {
            "Some backend differs from the interpreter"
        }
    ));
    o.push_str("<div class=\"cols\">");
    let py: Linked = a.python.lines().map(|l| (l.to_string(), None)).collect();
    column(&mut o, "python", "Python (kernel.py)", Ok(py));
    column(&mut o, "ir", "Weft IR (optimized)", Ok(link_ir(&a.ir)));
    column(
        &mut o,
        "ptx",
        "PTX (sm_80)",
        a.ptx
            .as_deref()
            .map(|p| link_ptx(p, &kfile))
            .map_err(Clone::clone),
    );
    let hlsl_title = if a.glslang {
        "HLSL (Vulkan via glslang)"
    } else {
        "HLSL (glslang not installed: not run here)"
    };
    column(
        &mut o,
        "hlsl",
        hlsl_title,
        a.hlsl
            .as_deref()
            .map(|h| link_hlsl(h, &kfile))
            .map_err(Clone::clone),
    );
    let kl = kernel_lines(&a.ir);
    column(
        &mut o,
        "clif",
        "CPU: Cranelift IR (per function)",
        a.clif
            .as_deref()
            .map(|t| link_clif(t, &kl))
            .map_err(Clone::clone),
    );
    o.push_str("</div>");
    o.push_str(&format!("<script>{JS}</script></body></html>\n"));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_each_text() {
        let ir = "file 0 \"/c/kernel.py\"\nkernel @k(v0 \"x\": array1<f32>) @0:5:5 {\n  v2: i32 = thread_id @0:6:11\n  v9: f32 = call @f(v2) @1:3:4\n}\n";
        let l = link_ir(ir);
        let srcs: Vec<_> = l.iter().map(|(_, s)| *s).collect();
        assert_eq!(srcs, vec![None, Some(5), Some(6), None, None]);
        assert_eq!(kernel_lines(ir), vec![("k".to_string(), 5)]);

        let ptx = ".file 1 \"/c/kernel.py\"\n.file 2 \"<prelude>\"\n.visible .entry k(\n{\n.loc 1 7 3\nadd.s32 %r1, %r2, 1;\n.loc 2 1 1\nmul.f32 %f1, %f2, %f3;\n.loc 1 8 1\nret;\n}\n";
        let p: Vec<_> = link_ptx(ptx, "/x/kernel.py")
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        assert_eq!(
            p,
            vec![
                None,
                None,
                None,
                None,
                Some(7),
                Some(7),
                None,
                None,
                Some(8),
                Some(8),
                None
            ]
        );

        let hlsl = "// ---- kernel k ----\nvoid main() {\n#line 6 \"/c/kernel.py\"\n  int a = 1;\n#line 2 \"<prelude>\"\n  int b = 2;\n}\n";
        let h: Vec<_> = link_hlsl(hlsl, "kernel.py")
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        assert_eq!(h, vec![None, None, Some(6), Some(6), None, None, None]);

        let clif =
            "; kernel k\nfunction u0:1() {\nblock0:\n}\n\n; kernel other\nfunction u0:2() {\n";
        let c: Vec<_> = link_clif(clif, &kernel_lines(ir))
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        assert_eq!(
            c,
            vec![Some(5), Some(5), Some(5), Some(5), None, None, None]
        );
        assert_eq!(
            escape("<a href='x'>&\""),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;"
        );
    }
}
