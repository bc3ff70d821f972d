//! Diagnostics: a message, a primary span in the kernel source, optional
//! secondary labels and notes; rendered rustc-style with
//! `codespan-reporting`.

use ruff_text_size::TextRange;

/// A byte range in the source being compiled.
pub type Span = TextRange;

/// One error (or warning) about the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub message: String,
    /// Primary span: where the caret goes.
    pub span: Span,
    /// Short text printed under the caret (may be empty).
    pub label: String,
    /// Secondary spans with their labels.
    pub secondary: Vec<(Span, String)>,
    /// `= help: ...` lines: what to do about it.
    pub help: Vec<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            help: Vec::new(),
        }
    }
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help.push(help.into());
        self
    }
}

impl Diagnostic {
    /// A placeholder for an error that was already reported elsewhere (e.g.
    /// in a callee); dropped when diagnostics are collected.
    pub(crate) fn reported() -> Diagnostic {
        Diagnostic::error(Span::default(), String::new())
    }
    pub(crate) fn is_reported(&self) -> bool {
        self.message.is_empty()
    }
}

/// All diagnostics of one compile, with the source they point into.
#[derive(Debug, Clone)]
pub struct Diagnostics {
    pub file_name: String,
    pub source: String,
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Renders every diagnostic rustc-style (`error: msg`, `--> file:line:col`,
    /// the source line with carets, `= help: ...`), with ANSI colors if
    /// `color`.
    pub fn render(&self, color: bool) -> String {
        use codespan_reporting::diagnostic::{Diagnostic as CsDiag, Label};
        use codespan_reporting::files::SimpleFile;
        use codespan_reporting::term::{self, termcolor::Ansi, Chars, Config};

        let file = SimpleFile::new(self.file_name.as_str(), self.source.as_str());
        let config = Config {
            chars: Chars::ascii(),
            ..Config::default()
        };
        let len = self.source.len();
        let clamp = |s: Span| {
            let start = (usize::from(s.start())).min(len);
            let end = (usize::from(s.end())).clamp(start, len);
            start..end
        };
        let mut out = Vec::new();
        for d in &self.items {
            let mut labels = vec![Label::primary((), clamp(d.span)).with_message(d.label.as_str())];
            for (s, l) in &d.secondary {
                labels.push(Label::secondary((), clamp(*s)).with_message(l.as_str()));
            }
            let cs = CsDiag::error()
                .with_message(d.message.as_str())
                .with_labels(labels)
                .with_notes(d.help.iter().map(|h| format!("help: {h}")).collect());
            let res = if color {
                term::emit_to_write_style(&mut Ansi::new(&mut out), &config, &file, &cs)
            } else {
                term::emit_to_io_write(&mut out, &config, &file, &cs)
            };
            if res.is_err() {
                out.extend_from_slice(format!("error: {}\n", d.message).as_bytes());
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

impl std::fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render(false))
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_rustc_style_with_and_without_color() {
        let source = "import warp as wp\nx = oops\n";
        let d = Diagnostics {
            file_name: "m.py".into(),
            source: source.into(),
            items: vec![
                Diagnostic::error(Span::new(22.into(), 26.into()), "unknown name `oops`")
                    .with_label("not defined")
                    .with_secondary(Span::new(18.into(), 19.into()), "assigned here")
                    .with_help("define it first"),
            ],
        };
        let plain = d.render(false);
        assert!(plain.starts_with("error: unknown name `oops`\n"), "{plain}");
        assert!(plain.contains("--> m.py:2:5"), "{plain}");
        assert!(plain.contains("x = oops"), "{plain}");
        assert!(plain.contains("^^^^ not defined"), "{plain}");
        assert!(plain.contains("= help: define it first"), "{plain}");
        assert!(!plain.contains('\u{1b}'));
        assert_eq!(d.to_string(), plain);
        assert!(d.render(true).contains('\u{1b}'));
        // A span past the end of the source is clamped, not a panic.
        let far = Diagnostics {
            items: vec![Diagnostic::error(Span::new(500.into(), 900.into()), "far")],
            ..d
        };
        assert!(far.render(false).contains("error: far"));
    }
}
