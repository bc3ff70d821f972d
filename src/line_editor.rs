//! Line editing and history for the interactive debugger (`weft debug` on a
//! terminal): a [`BufRead`] whose lines come from a readline-style editor
//! (rustyline), so that the session reads it like a script.
//!
//! The history is kept in `$WEFT_HISTORY`, or else `$HOME/.weft_history`
//! (loaded when the editor opens, saved when it is dropped); without either
//! it lives only as long as the session. Ctrl-C drops the line being typed,
//! Ctrl-D ends the session like `quit`.

use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;
use std::io::{BufRead, Read};
use std::path::PathBuf;

/// The editor with its history, and the line it has handed out in part.
pub struct LineEditor {
    editor: DefaultEditor,
    prompt: String,
    history: Option<PathBuf>,
    line: Vec<u8>,
    pos: usize,
    done: bool,
}

impl LineEditor {
    /// An editor that shows `prompt` before each line; an error when the
    /// terminal cannot be set up.
    pub fn new(prompt: &str) -> std::io::Result<LineEditor> {
        let mut editor = DefaultEditor::new().map_err(std::io::Error::other)?;
        let history = std::env::var_os("WEFT_HISTORY")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".weft_history")));
        if let Some(p) = &history {
            // A missing or unreadable history is an empty one.
            let _ = editor.load_history(p);
        }
        Ok(LineEditor {
            editor,
            prompt: prompt.to_string(),
            history,
            line: Vec::new(),
            pos: 0,
            done: false,
        })
    }

    /// Reads the next line into `self.line` (empty at the end).
    fn next_line(&mut self) -> std::io::Result<()> {
        self.line.clear();
        self.pos = 0;
        while !self.done {
            match self.editor.readline(&self.prompt) {
                Ok(l) => {
                    if !l.trim().is_empty() {
                        let _ = self.editor.add_history_entry(l.as_str());
                    }
                    self.line = l.into_bytes();
                    self.line.push(b'\n');
                    return Ok(());
                }
                Err(ReadlineError::Interrupted) => continue,
                Err(ReadlineError::Eof) => self.done = true,
                Err(e) => return Err(std::io::Error::other(e)),
            }
        }
        Ok(())
    }
}

impl Read for LineEditor {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for LineEditor {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos >= self.line.len() {
            self.next_line()?;
        }
        Ok(&self.line[self.pos..])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.line.len());
    }
}

impl Drop for LineEditor {
    fn drop(&mut self) {
        if let Some(p) = &self.history {
            // Failing to save the history loses nothing of the session.
            let _ = self.editor.save_history(p);
        }
    }
}
