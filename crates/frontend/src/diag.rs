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
