//! The HTML page of `weft compare --html`, rendered by headless Chromium
//! (Debian's `chromium`): after the page's script ran, the dumped DOM has
//! the five columns, the results table, line badges on the Python lines
//! and, for the line selected by the URL fragment, highlighted lines in
//! every column. Prints a counted `SKIP:` when chromium or the corpus is missing.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|b| {
            std::env::var_os("PATH")
                .map(|p| {
                    std::env::split_paths(&p)
                        .map(|d| d.join(b))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
        .find(|p| p.is_file())
}

fn dump_dom(browser: &Path, url: &str, profile: &Path) -> String {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The text of the `<section ... data-col="COL">` element.
fn section<'a>(dom: &'a str, col: &str) -> &'a str {
    let start = dom
        .find(&format!("data-col=\"{col}\""))
        .unwrap_or_else(|| panic!("no column {col}"));
    let end = dom[start..].find("</section>").expect("section end") + start;
    &dom[start..end]
}

/// Lines linked to Python line `n` in a column: (highlighted, all, other
/// lines highlighted).
fn highlighted(section: &str, n: u32) -> (usize, usize, usize) {
    let (mut hl, mut all, mut stray) = (0, 0, 0);
    for tag in section.split("<span ").skip(1) {
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        let class = tag
            .split("class=\"")
            .nth(1)
            .and_then(|c| c.split('"').next())
            .unwrap_or("");
        let is_hl = class.split(' ').any(|c| c == "hl");
        if tag.contains(&format!("data-src=\"{n}\"")) {
            all += 1;
            hl += usize::from(is_hl);
        } else if is_hl {
            stray += 1;
        }
    }
    (hl, all, stray)
}

#[test]
fn page_renders_offline_with_linked_columns() {
    let Some(case) = common::corpus_case("vec_geometry") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("weft-html-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_weft"))
        .arg("compare")
        .arg(&case)
        .arg("--html")
        .arg(&page)
        .env("WEFT_CACHE_DIR", dir.join("cache"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing is fetched.
    for bad in ["http://", "https://", "<link", " src=\""] {
        assert!(!html.contains(bad), "page refers to {bad}");
    }
    // A Python line with code in it: the line of the first IR location.
    let ir_line: u32 = html
        .split("data-src=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next()?.parse().ok())
        .filter(|&n: &u32| n > 6)
        .min()
        .expect("a linked line");
    let Some(browser) = chromium() else {
        weft_testkit::skip("chromium not installed (apt-get install chromium)");
        return;
    };
    let url = format!("file://{}#L{ir_line}", page.display());
    let dom = dump_dom(&browser, &url, &dir.join("profile"));
    assert!(dom.contains("<table id=\"results\""), "no table");
    assert!(
        dom.contains(&format!("data-selected=\"{ir_line}\"")),
        "the script did not run or select #L{ir_line}"
    );
    for col in ["python", "ir", "ptx", "hlsl", "clif"] {
        let s = section(&dom, col);
        let available = !s.contains("class=\"note\"");
        if available {
            let (hl, total, other) = highlighted(s, ir_line);
            assert!(s.contains("data-src="), "column {col} links nothing");
            // The CLIF has no per-instruction locations: it links its
            // functions to the kernels' `def` lines only.
            let need = if col == "clif" { total } else { total.max(1) };
            assert!(
                hl == need && hl == total,
                "column {col}: {hl} of {total} lines of Python line {ir_line} highlighted"
            );
            assert_eq!(other, 0, "column {col}: other lines highlighted");
        } else {
            println!(
                "column {col}: {}",
                &s[s.find("class=\"note\"").unwrap()..]
                    .chars()
                    .take(200)
                    .collect::<String>()
            );
        }
    }
    // Badges were added by the script to the linked Python lines.
    let py = section(&dom, "python");
    assert!(py.contains("class=\"badge\""), "no badges");
    assert!(py.contains("class=\"l linked"), "no linked python lines");
    let _ = std::fs::remove_dir_all(&dir);
}
