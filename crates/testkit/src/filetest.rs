//! The directives of `.ir` file tests, in the manner of Cranelift's
//! filetests: a file is IR text with `;` comment lines that say what to do
//! with it and what must come out.
//!
//! ```text
//! ; test run interp cpu llvm-cpu     what to do, and where (first line)
//! ; <any other comment>
//! <module in IR text>
//! ; run: k(4) x=[1, 2, 3, 4] -> x=[2, 4, 6, 8]
//! ; check: <text>                    must appear in the output, in order
//! ; not: <text>                      must not appear in the output
//! ; error: <text>                    the command must fail with this text
//! ; expect:                          the exact output (last section; each
//! ;   <line>                         line prefixed by "; ")
//! ```
//!
//! This module parses the directives and checks outputs; what a command
//! means (`verify`, `run`, `emit clif`, a pass list) is the runner's.

/// A file test's directives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileTest {
    /// The words after `; test` (e.g. `["run", "interp", "cpu"]`); empty
    /// when the file has no `; test` line.
    pub test: Vec<String>,
    /// Every other `; key: value` directive, in order (`check`, `not`,
    /// `error`, `run`, and the runner's own keys such as `pass`).
    pub directives: Vec<(String, String)>,
    /// The exact expected output (`; expect:` section), if any.
    pub expect: Option<String>,
    /// The file's text before the `; expect:` section (the input).
    pub head: String,
}

/// The marker of the expected-output section.
pub const EXPECT: &str = "; expect:";

impl FileTest {
    /// Parses a file test's text.
    pub fn parse(text: &str) -> FileTest {
        let (head, expect) = match text.find(EXPECT) {
            Some(i) => {
                let body = &text[i + EXPECT.len()..];
                let lines: Vec<&str> = body
                    .lines()
                    .skip(1)
                    .map(|l| {
                        l.strip_prefix("; ")
                            .unwrap_or(l.strip_prefix(';').unwrap_or(l))
                    })
                    .collect();
                let mut e = lines.join("\n");
                e.push('\n');
                (text[..i].to_string(), Some(e))
            }
            None => (text.to_string(), None),
        };
        let mut t = FileTest {
            expect,
            head,
            ..FileTest::default()
        };
        for line in t.head.lines() {
            let Some(rest) = line.trim().strip_prefix(';') else {
                continue;
            };
            let rest = rest.trim();
            if let Some(words) = rest.strip_prefix("test ") {
                t.test = words.split_whitespace().map(String::from).collect();
            } else if let Some((k, v)) = rest.split_once(':') {
                let k = k.trim();
                if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                    t.directives.push((k.to_string(), v.trim().to_string()));
                }
            }
        }
        t
    }

    /// The values of directive `key`, in order.
    pub fn values<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.directives
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Checks `output` against the `check` (in order), `not` and
    /// `expect` directives; `Err` says what failed.
    pub fn check_output(&self, output: &str) -> Result<(), String> {
        check_in_order(output, self.values("check"))?;
        for n in self.values("not") {
            if output.contains(n) {
                return Err(format!("`{n}` must not appear in:\n{output}"));
            }
        }
        if let Some(e) = &self.expect {
            if e.trim_end() != output.trim_end() {
                return Err(format!(
                    "the output differs from `; expect:` (WEFT_BLESS=1 rewrites it):\n{}",
                    crate::snapshot::diff(e, output)
                ));
            }
        }
        Ok(())
    }

    /// Checks a failure's message against the `error` directives (each
    /// must appear); a test without `error` directives must not fail.
    pub fn check_error(&self, message: &str) -> Result<(), String> {
        let mut any = false;
        for e in self.values("error") {
            any = true;
            if !message.contains(e) {
                return Err(format!("expected an error with `{e}`, got: {message}"));
            }
        }
        if any {
            Ok(())
        } else {
            Err(format!("unexpected error: {message}"))
        }
    }

    /// The file's text with its `; expect:` section set to `output` (for
    /// blessing).
    pub fn blessed(&self, output: &str) -> String {
        let mut s = self.head.trim_end().to_string();
        s.push_str("\n\n");
        s.push_str(EXPECT);
        s.push('\n');
        for l in output.lines() {
            s.push_str("; ");
            s.push_str(l);
            s.push('\n');
        }
        s
    }
}

/// Each of `needles` appears in `haystack`, each after the previous one.
pub fn check_in_order<'a>(
    haystack: &str,
    needles: impl IntoIterator<Item = &'a str>,
) -> Result<(), String> {
    let mut at = 0;
    for n in needles {
        match haystack[at..].find(n) {
            Some(i) => at += i + n.len(),
            None => {
                return Err(format!(
                    "`{n}` not found (after the previous checks) in:\n{haystack}"
                ))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "; test run interp cpu\n; a comment, not a directive\n; check: add\n; run: k(2) x=[1, 2] -> x=[2, 4]\nkernel @k() {\n  return\n}\n; expect:\n; line one\n; line two\n";

    #[test]
    fn parses_directives_and_the_expect_section() {
        let t = FileTest::parse(T);
        assert_eq!(t.test, ["run", "interp", "cpu"]);
        assert_eq!(t.values("check").collect::<Vec<_>>(), ["add"]);
        assert_eq!(
            t.values("run").collect::<Vec<_>>(),
            ["k(2) x=[1, 2] -> x=[2, 4]"]
        );
        assert_eq!(t.values("a comment, not a directive").count(), 0);
        assert_eq!(t.expect.as_deref(), Some("line one\nline two\n"));
        assert!(t.head.ends_with("}\n"));
    }

    #[test]
    fn checks_are_ordered_and_nots_absent() {
        let t = FileTest::parse("; check: a\n; check: c\n; not: z\n");
        assert!(t.check_output("a b c").is_ok());
        assert!(t.check_output("c b a").is_err());
        assert!(t.check_output("a c z").is_err());
        let t = FileTest::parse("; error: bad\n");
        assert!(t.check_error("a bad thing").is_ok());
        assert!(t.check_error("fine").is_err());
        assert!(FileTest::parse("").check_error("x").is_err());
    }

    #[test]
    fn blessing_writes_the_expect_section() {
        let t = FileTest::parse(T);
        // The output keeps satisfying `T`'s `; check: add`.
        let b = FileTest::parse(&t.blessed("new add\nout\n"));
        assert_eq!(b.expect.as_deref(), Some("new add\nout\n"));
        assert_eq!(b.test, t.test);
        assert_eq!(b.directives, t.directives);
        assert!(b.check_output("new add\nout").is_ok());
        assert!(b.check_output("new\nout").is_err());
    }
}
