//! The golden model stays in small parts: no source file over 800 lines and no function outside
//! tests over 120 lines (declarative tables excepted, by name), and no Rust line over rustfmt's
//! 100 columns (a longer line makes rustfmt leave its whole item unformatted).

mod common;

use std::fs;
use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 800;
const MAX_FN_LINES: usize = 120;
const MAX_COLUMNS: usize = 100;

/// Functions that are declarative tables (one entry per field, key or rule) and may be long.
const TABLES: &[&str] = &[
    // seed 000 Table III, field by field (golden/src/cost/ot.rs)
    "table_iii",
];

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    common::files_under(dir, |_| true, |p| p.extension().is_some_and(|x| x == "rs"))
}

/// Whether a file holds tests only (`*_tests.rs`, `tests.rs`, or a `tests/` module folder).
fn is_test_file(p: &Path) -> bool {
    let name = p.file_name().unwrap().to_string_lossy();
    name.ends_with("_tests.rs")
        || name == "tests.rs"
        || p.components().any(|c| c.as_os_str() == "tests")
}

/// Each function of `text` outside `#[cfg(test)]` modules: (name, first line, lines).
/// Brace counting over code with strings, characters and comments blanked.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let code = blank(text);
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim_start();
        if l.starts_with("#[cfg(test)]") {
            // Skip the item it guards (a module or a function) by its braces.
            i = end_of_item(&lines, i + 1) + 1;
            continue;
        }
        if let Some(name) = fn_name(l) {
            let end = end_of_item(&lines, i);
            out.push((name, i + 1, end - i + 1));
            i = end + 1;
            continue;
        }
        i += 1;
    }
    out
}

/// The name of the function a line declares, if it does.
fn fn_name(l: &str) -> Option<String> {
    let mut rest = l;
    for kw in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "unsafe ",
        "async ",
        "extern \"C\" ",
    ] {
        rest = rest.strip_prefix(kw).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The line on which the item starting at line `from` ends (its braces balance, or a `;`
/// before any brace ends it).
fn end_of_item(lines: &[&str], from: usize) -> usize {
    let mut depth = 0i64;
    let mut opened = false;
    for (k, l) in lines.iter().enumerate().skip(from) {
        for c in l.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth -= 1,
                ';' if !opened && depth == 0 => return k,
                _ => {}
            }
        }
        if opened && depth == 0 {
            return k;
        }
    }
    lines.len() - 1
}

/// `text` with the contents of comments, strings and character literals replaced by spaces
/// (line breaks kept), so that braces in them are not counted.
fn blank(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            while i < b.len() && !(b[i] == '*' && b.get(i + 1) == Some(&'/')) {
                out.push(if b[i] == '\n' { '\n' } else { ' ' });
                i += 1;
            }
            out.push_str("  ");
            i += 2;
        } else if c == 'r' && matches!(next, Some('"') | Some('#')) && raw_start(&b, i).is_some() {
            let (hashes, body) = raw_start(&b, i).unwrap();
            i = body;
            out.push('"');
            loop {
                if i >= b.len() {
                    break;
                }
                if b[i] == '"' && (0..hashes).all(|h| b.get(i + 1 + h) == Some(&'#')) {
                    i += 1 + hashes;
                    out.push('"');
                    break;
                }
                out.push(if b[i] == '\n' { '\n' } else { ' ' });
                i += 1;
            }
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < b.len() {
                    out.push(if b[i] == '\n' { '\n' } else { ' ' });
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c == '\'' && char_literal_len(&b, i).is_some() {
            let n = char_literal_len(&b, i).unwrap();
            out.push_str(&" ".repeat(n));
            i += n;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// For a raw string starting at `i` (`r"`, `r#"`, ...): its hash count and where its body
/// starts. Not an identifier ending in `r`.
fn raw_start(b: &[char], i: usize) -> Option<(usize, usize)> {
    if i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_') {
        return None;
    }
    let mut j = i + 1;
    while b.get(j) == Some(&'#') {
        j += 1;
    }
    (b.get(j) == Some(&'"')).then_some((j - i - 1, j + 1))
}

/// The length of a character literal at `i` (`'x'`, `'\n'`, `'\u{..}'`), or `None` for a
/// lifetime.
fn char_literal_len(b: &[char], i: usize) -> Option<usize> {
    if b.get(i + 1) == Some(&'\\') {
        let close = (i + 2..b.len().min(i + 12)).find(|&k| b[k] == '\'')?;
        return Some(close - i + 1);
    }
    (b.get(i + 2) == Some(&'\'')).then_some(3)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn golden_source_files_and_functions_are_small() {
    let root = root();
    let mut over = Vec::new();
    for f in rust_files(&root.join("golden/src")) {
        let text = fs::read_to_string(&f).unwrap();
        let rel = f.strip_prefix(&root).unwrap().display().to_string();
        let n = text.lines().count();
        if n > MAX_FILE_LINES {
            over.push(format!("{rel}: {n} lines (at most {MAX_FILE_LINES})"));
        }
        if is_test_file(Path::new(&rel)) {
            continue;
        }
        for (name, line, len) in functions(&text) {
            if len > MAX_FN_LINES && !TABLES.contains(&name.as_str()) {
                over.push(format!(
                    "{rel}:{line}: fn {name} is {len} lines (at most {MAX_FN_LINES})"
                ));
            }
        }
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
}

#[test]
fn no_rust_line_is_wider_than_rustfmt_formats() {
    let root = root();
    let mut wide = Vec::new();
    for dir in ["golden", "spec", "rtlgen", "sim", "src", "tests"] {
        for f in rust_files(&root.join(dir)) {
            let rel = f.strip_prefix(&root).unwrap().display().to_string();
            for (k, l) in fs::read_to_string(&f).unwrap().lines().enumerate() {
                let cols = l.chars().count();
                if cols > MAX_COLUMNS {
                    wide.push(format!("{rel}:{}: {cols} columns", k + 1));
                }
            }
        }
    }
    assert!(wide.is_empty(), "{}", wide.join("\n"));
}

#[test]
fn the_measures_see_what_they_measure() {
    let src = "fn a() {\n    let s = \"}}}\";\n    // }\n    let c = '}';\n}\n\
               #[cfg(test)]\nmod tests {\n    fn long() {\n    }\n}\n\
               pub(crate) fn b<'x>(v: &'x str) -> &'x str {\n    v\n}\n\
               fn c();\n";
    assert_eq!(
        functions(src),
        [
            ("a".to_string(), 1, 5),
            ("b".to_string(), 11, 3),
            ("c".to_string(), 14, 1)
        ]
    );
    // A function one line over the limit is reported.
    let body = "    x();\n".repeat(MAX_FN_LINES - 1);
    let long = format!("fn long() {{\n{body}}}\n");
    assert_eq!(functions(&long)[0].2, MAX_FN_LINES + 1);
    assert!(is_test_file(Path::new("golden/src/mc/dram_tests.rs")));
    assert!(is_test_file(Path::new("golden/src/gpu/run/tests/mod.rs")));
    assert!(!is_test_file(Path::new("golden/src/mc/dram.rs")));
}
