//! The documentation stays true to the tree: every decision the code cites exists, the
//! decisions' index lists every decision, and each crate's documentation names its modules.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The decisions of `docs/decisions/`: ID -> (file stem, title), in file and heading order,
/// or the headings that break the rules (an ID outside its file's prefix, an ID twice).
fn decisions(dir: &Path) -> Result<Vec<(String, String, String)>, Vec<String>> {
    let mut out = Vec::new();
    let mut bad = Vec::new();
    let mut seen = BTreeSet::new();
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    files.sort();
    for f in files {
        let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
        let mut prefix: Option<String> = None;
        for line in fs::read_to_string(&f).unwrap().lines() {
            let Some(head) = line.strip_prefix("## ") else {
                continue;
            };
            let Some((id, title)) = head.split_once(": ") else {
                bad.push(format!("{stem}.md: heading without an ID: {line}"));
                continue;
            };
            let Some((p, n)) = id.split_once('-') else {
                bad.push(format!("{stem}.md: {id} is not PREFIX-N"));
                continue;
            };
            if n.parse::<u32>().is_err()
                || p.is_empty()
                || !p.chars().all(|c| c.is_ascii_uppercase())
            {
                bad.push(format!("{stem}.md: {id} is not PREFIX-N"));
            }
            match &prefix {
                None => prefix = Some(p.to_string()),
                Some(q) if q != p => bad.push(format!("{stem}.md: {id} is not a {q} decision")),
                Some(_) => {}
            }
            if !seen.insert(id.to_string()) {
                bad.push(format!("{stem}.md: {id} is used twice"));
            }
            out.push((id.to_string(), stem.clone(), title.to_string()));
        }
    }
    if bad.is_empty() {
        Ok(out)
    } else {
        Err(bad)
    }
}

/// The decision IDs cited in `text` as `decision ID` (or `decisions ID, ID and ID`).
fn cited(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let words: Vec<&str> = text.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        let w = w.trim_start_matches('(');
        if w != "decision" && w != "decisions" {
            continue;
        }
        for next in &words[i + 1..] {
            if *next == "and" {
                continue;
            }
            let id = next.trim_end_matches(|c: char| ",.;:)".contains(c));
            let is_id = id.split_once('-').is_some_and(|(p, n)| {
                !p.is_empty()
                    && p.chars().all(|c| c.is_ascii_uppercase())
                    && !n.is_empty()
                    && n.chars().all(|c| c.is_ascii_digit())
            });
            if !is_id {
                break;
            }
            out.push(id.to_string());
            if id.len() != next.len() && !next.ends_with(',') {
                break;
            }
        }
    }
    out
}

/// Every text file of the project (not build output, tools or reference copies).
fn sources(root: &Path) -> Vec<PathBuf> {
    let enter = |p: &Path| {
        let name = p.file_name().unwrap().to_string_lossy();
        !name.starts_with('.') && !["target", "hw", "node_modules"].contains(&&*name)
            || name == ".ci"
    };
    let text = |p: &Path| {
        ["rs", "sv", "svh", "toml", "sh", "py", "md"]
            .iter()
            .any(|x| p.extension().is_some_and(|e| e == *x))
    };
    common::files_under(root, enter, text)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_cited_decision_exists() {
    let root = root();
    let known: BTreeMap<String, String> = decisions(&root.join("docs/decisions"))
        .unwrap_or_else(|bad| panic!("docs/decisions breaks its rules:\n{}", bad.join("\n")))
        .into_iter()
        .map(|(id, stem, _)| (id, stem))
        .collect();
    let mut missing = Vec::new();
    let mut citations = 0;
    for f in sources(&root) {
        if f.ends_with("tests/docs.rs") {
            continue; // its own messages and self-test name the old file and sample IDs
        }
        let text = fs::read_to_string(&f).unwrap();
        let rel = f.strip_prefix(&root).unwrap().display().to_string();
        for (n, line) in text.lines().enumerate() {
            if line.contains("decisions.md") {
                missing.push(format!(
                    "{rel}:{}: cites docs/decisions.md, now docs/decisions/",
                    n + 1
                ));
            }
            for id in cited(line) {
                citations += 1;
                if !known.contains_key(&id) {
                    missing.push(format!("{rel}:{}: decision {id} does not exist", n + 1));
                }
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    assert!(
        citations >= 10,
        "only {citations} citations found: is the scan reading the tree?"
    );
}

#[test]
fn the_index_lists_every_decision_in_order() {
    let root = root();
    let all = decisions(&root.join("docs/decisions")).unwrap_or_else(|bad| panic!("{bad:?}"));
    let index = fs::read_to_string(root.join("docs/decisions/README.md")).unwrap();
    let listed: Vec<(String, String)> = index
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| l.split_once(": "))
        .map(|(id, t)| (id.to_string(), t.to_string()))
        .collect();
    let mut in_files: Vec<(String, String, String)> = all.clone();
    // The index goes topic by topic in its own order; compare per topic.
    in_files.sort_by_key(|(id, _, _)| {
        listed
            .iter()
            .position(|(l, _)| l == id)
            .unwrap_or(usize::MAX)
    });
    let want: Vec<(String, String)> = in_files.into_iter().map(|(id, _, t)| (id, t)).collect();
    assert_eq!(
        listed, want,
        "docs/decisions/README.md must list every decision, as titled"
    );
    for (_, stem, _) in &all {
        assert!(
            index.contains(&format!("({stem}.md)")),
            "the index does not link {stem}.md"
        );
    }
}

#[test]
fn every_crate_documents_its_modules() {
    let root = root();
    let mut missing = Vec::new();
    for lib in ["spec", "golden", "rtlgen", "sim"] {
        let path = root.join(lib).join("src/lib.rs");
        let text = fs::read_to_string(&path).unwrap();
        let doc: String = text
            .lines()
            .filter_map(|l| l.strip_prefix("//!"))
            .collect::<Vec<_>>()
            .join("\n");
        for line in text.lines() {
            let Some(m) = line.strip_prefix("pub mod ") else {
                continue;
            };
            let m = m.trim_end_matches(';');
            if !doc.contains(&format!("[`{m}`]")) {
                missing.push(format!(
                    "{lib}/src/lib.rs: module {m} is not in the crate's documentation"
                ));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn the_checks_catch_what_they_are_for() {
    // Citations are read in their forms, and a broken one is seen.
    assert_eq!(cited("(decision MEM-11)."), ["MEM-11"]);
    assert_eq!(
        cited("see decisions OT-1, OT-2 and GPU-7."),
        ["OT-1", "OT-2", "GPU-7"]
    );
    assert_eq!(cited("a decision unit of 4 entries"), Vec::<String>::new());
    let dir = std::env::temp_dir().join(format!("warpsmith-docs-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("a.md"), "# A\n\n## A-1: one\n\n## A-2: two\n").unwrap();
    assert_eq!(decisions(&dir).unwrap().len(), 2);
    // An ID twice, an ID of another prefix and a heading without an ID are each refused.
    for wrong in ["## A-1: again\n", "## B-3: other\n", "## untitled\n"] {
        fs::write(dir.join("b.md"), format!("# B\n\n## A-3: fine\n\n{wrong}")).unwrap();
        assert!(decisions(&dir).is_err(), "{wrong:?} was accepted");
    }
    fs::remove_dir_all(&dir).unwrap();
}
