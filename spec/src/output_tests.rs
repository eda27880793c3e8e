use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Every regular file under `dir` (links as their target text), by path relative to `dir`.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                walk(root, &p, out);
            } else if m.file_type().is_symlink() {
                out.insert(
                    rel,
                    std::fs::read_link(&p).unwrap().into_os_string().into_vec(),
                );
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    use std::os::unix::ffi::OsStringExt;
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn files(names: &[(&str, &str)]) -> Vec<(String, Entry)> {
    names
        .iter()
        .map(|(n, t)| (n.to_string(), Entry::File(t.as_bytes().to_vec())))
        .collect()
}

/// What a user put in `dir` that the marker does not name is still there, byte for byte.
fn users_files_intact(before: &BTreeMap<String, Vec<u8>>, after: &BTreeMap<String, Vec<u8>>) {
    for (k, v) in before {
        assert_eq!(after.get(k), Some(v), "{k} was lost or changed");
    }
}

#[test]
fn a_new_folder_is_written_whole_with_its_marker() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("a/b/out");
    replace_folder(&out, &files(&[("x.sv", "x"), ("manifest.json", "{}")])).unwrap();
    assert_eq!(std::fs::read_to_string(out.join("x.sv")).unwrap(), "x");
    let names = marked(&out).unwrap();
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        ["manifest.json", "x.sv"]
    );
    // No temporary folder is left beside it.
    let left: Vec<_> = std::fs::read_dir(d.path().join("a/b")).unwrap().collect();
    assert_eq!(left.len(), 1);
}

#[test]
fn earlier_output_is_replaced_and_a_users_files_are_kept() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    replace_folder(&out, &files(&[("old.sv", "1"), ("keep.sv", "1")])).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    std::fs::create_dir(out.join("src")).unwrap();
    std::fs::write(out.join("src/main.js"), "js").unwrap();
    let users: BTreeMap<_, _> = tree(&out)
        .into_iter()
        .filter(|(k, _)| k == "notes.txt" || k.starts_with("src"))
        .collect();
    replace_folder(&out, &files(&[("keep.sv", "2"), ("new.sv", "2")])).unwrap();
    let after = tree(&out);
    users_files_intact(&users, &after);
    assert!(!out.join("old.sv").exists(), "stale output is removed");
    assert_eq!(after["keep.sv"], b"2");
    assert_eq!(after["new.sv"], b"2");
    // A wrong variant: replacing the folder whole (what warpsmith did) loses the user's files,
    // and the same check says so.
    std::fs::remove_dir_all(&out).unwrap();
    fill_fresh(&out, &files(&[("keep.sv", "2")]));
    let lost = std::panic::catch_unwind(|| users_files_intact(&users, &tree(&out)));
    assert!(lost.is_err());
}

fn fill_fresh(dir: &Path, entries: &[(String, Entry)]) {
    std::fs::create_dir_all(dir).unwrap();
    fill(dir, entries).unwrap();
}

#[test]
fn a_name_held_by_a_users_file_is_refused_before_anything_is_written() {
    let d = tempfile::tempdir().unwrap();
    let web = d.path().join("web");
    std::fs::create_dir_all(web.join("src")).unwrap();
    std::fs::write(web.join("manifest.json"), "{\"name\":\"app\"}").unwrap();
    std::fs::write(web.join("src/main.js"), "js").unwrap();
    let before = tree(&web);
    let e = replace_folder(&web, &files(&[("a.sv", "a"), ("manifest.json", "{}")])).unwrap_err();
    assert!(
        e.to_string().contains("manifest.json") && e.to_string().contains(MARKER),
        "{e}"
    );
    assert_eq!(tree(&web), before, "nothing written, nothing removed");
}

#[test]
fn a_damaged_marker_is_not_trusted() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(d.path().join("victim"), "precious").unwrap();
    for bad in [
        format!("{HEADER}\n../victim\n"),
        format!("{HEADER}\nsub/x\n"),
        "not a marker\nvictim\n".to_string(),
    ] {
        std::fs::write(out.join(MARKER), &bad).unwrap();
        let e = replace_folder(&out, &files(&[("a.sv", "a")])).unwrap_err();
        assert!(e.to_string().contains("not trusted"), "{e}");
        assert_eq!(
            std::fs::read_to_string(d.path().join("victim")).unwrap(),
            "precious"
        );
    }
    // A marker that is a link (to a file of the user's) is not written through either.
    std::fs::remove_file(out.join(MARKER)).unwrap();
    std::os::unix::fs::symlink(d.path().join("victim"), out.join(MARKER)).unwrap();
    assert!(replace_folder(&out, &files(&[("a.sv", "a")])).is_err());
    assert_eq!(
        std::fs::read_to_string(d.path().join("victim")).unwrap(),
        "precious"
    );
}

#[test]
fn nested_output_folders_keep_their_own_markers() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let block = |t: &str| Entry::Folder(files(&[("m.sv", t)]));
    replace_folder(
        &out,
        &[("ot".into(), block("1")), ("mc".into(), block("1"))],
    )
    .unwrap();
    std::fs::write(out.join("mc/notes.txt"), "mine").unwrap();
    // `mc` is no longer part of the output: its files go, the user's note stays.
    replace_folder(&out, &[("ot".into(), block("2"))]).unwrap();
    assert_eq!(std::fs::read_to_string(out.join("ot/m.sv")).unwrap(), "2");
    assert!(!out.join("mc/m.sv").exists());
    assert_eq!(
        std::fs::read_to_string(out.join("mc/notes.txt")).unwrap(),
        "mine"
    );
    assert!(!marked(&out).unwrap().contains("mc"));
}

#[test]
fn files_are_written_through_links_and_nothing_else_is_replaced() {
    let d = tempfile::tempdir().unwrap();
    let real = d.path().join("real.toml");
    let link = d.path().join("link.toml");
    std::os::unix::fs::symlink("real.toml", &link).unwrap();
    write_file(&link, b"a = 1\n").unwrap();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "a = 1\n");
    // An existing file keeps its permissions.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    write_file(&real, b"a = 2\n").unwrap();
    assert_eq!(
        std::fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o640
    );
    // A device, a FIFO and a folder are refused, by check and by write, and stay what they are.
    let fifo = d.path().join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    let mut others = vec![PathBuf::from("/dev/full"), d.path().to_path_buf()];
    if made.is_ok_and(|s| s.success()) {
        others.push(fifo.clone());
        let to_fifo = d.path().join("to-fifo");
        std::os::unix::fs::symlink(&fifo, &to_fifo).unwrap();
        others.push(to_fifo);
    }
    for p in &others {
        let kind_before = std::fs::metadata(p).unwrap().file_type();
        assert!(check_file(p).is_err(), "{}", p.display());
        let e = write_file(p, b"x").unwrap_err();
        assert!(
            e.to_string().contains("not a regular file") || e.to_string().contains("folder"),
            "{e}"
        );
        assert!(create(p).is_err());
        assert_eq!(std::fs::metadata(p).unwrap().file_type(), kind_before);
    }
    // A link loop is an error, not a hang.
    std::os::unix::fs::symlink("loop2", d.path().join("loop1")).unwrap();
    std::os::unix::fs::symlink("loop1", d.path().join("loop2")).unwrap();
    assert!(write_file(&d.path().join("loop1"), b"x").is_err());
    // A path that names a folder not yet there (`out/`) is refused before any work, and
    // nothing is made; without the check the write fails only at its end.
    for p in ["new/", "new/.", "new/.."] {
        let p = d.path().join(p);
        for e in [check_file(&p).unwrap_err(), create(&p).unwrap_err()] {
            assert!(
                e.to_string().contains("names a folder"),
                "{}: {e}",
                p.display()
            );
        }
        assert!(write_file(&p, b"x").is_err());
        assert!(!d.path().join("new").exists());
    }
}

#[test]
fn claimed_names_are_checked_and_recorded() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("rg");
    claim(&out, &["results.jsonl", "jobs"]).unwrap();
    std::fs::create_dir(out.join("jobs")).unwrap();
    std::fs::write(out.join("results.jsonl"), "").unwrap();
    claim(&out, &["results.jsonl", "jobs", "summary.txt"]).unwrap();
    // A user's folder with a summary.txt of its own is refused.
    let user = d.path().join("home");
    std::fs::create_dir(&user).unwrap();
    std::fs::write(user.join("summary.txt"), "mine").unwrap();
    let e = check_claim(&user, &["results.jsonl", "summary.txt"]).unwrap_err();
    assert!(e.to_string().contains("summary.txt"), "{e}");
    assert!(add_file(&user, "summary.txt", b"x").is_err());
    assert_eq!(
        std::fs::read_to_string(user.join("summary.txt")).unwrap(),
        "mine"
    );
    // A file named as the folder is refused.
    let f = d.path().join("file");
    std::fs::write(&f, "x").unwrap();
    assert!(check_claim(&f, &["a"]).is_err());
    assert!(check_folder(&f, &files(&[("a", "a")])).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Whatever a user adds to an output folder, and whatever the next output holds: the
    /// user's files are kept byte for byte (or the write is refused and nothing changes), and
    /// the output is exactly the new one.
    #[test]
    fn a_users_files_survive_any_sequence_of_outputs(
        first in proptest::collection::btree_set("[a-e]", 0..4),
        second in proptest::collection::btree_set("[a-e]", 0..4),
        user in proptest::collection::btree_set("[a-g]", 0..4),
    ) {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("out");
        let entries = |names: &BTreeSet<String>, text: &str| -> Vec<(String, Entry)> {
            names.iter().map(|n| (format!("{n}.sv"), Entry::File(text.into()))).collect()
        };
        replace_folder(&out, &entries(&first, "1")).unwrap();
        for u in &user {
            let p = out.join(format!("{u}.user"));
            std::fs::write(p, u).unwrap();
        }
        let before = tree(&out);
        let users: BTreeMap<_, _> = before
            .iter()
            .filter(|(k, _)| k.ends_with(".user"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        replace_folder(&out, &entries(&second, "2")).unwrap();
        let after = tree(&out);
        users_files_intact(&users, &after);
        for n in &second {
            prop_assert_eq!(&after[&format!("{n}.sv")], b"2");
        }
        for n in first.difference(&second) {
            let stale = format!("{n}.sv");
            prop_assert!(!after.contains_key(&stale));
        }
    }
}
