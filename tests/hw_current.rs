//! The RTL committed under hw/ is what the generator produces now.

mod common;
use spec::PRESETS;

#[test]
fn committed_hw_is_current() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("hw");
    let mut stale = Vec::new();
    for p in PRESETS {
        let spec = common::spec(p.name, &[]);
        for block in sim::blocks::BLOCKS {
            let g = block.generate(&spec, "").unwrap();
            for (name, text) in g.all_files() {
                let path = root.join(p.name).join(block.name).join(&name);
                match std::fs::read_to_string(&path) {
                    Ok(committed) if committed == text => {}
                    Ok(_) => stale.push(format!("{} differs", path.display())),
                    Err(_) => stale.push(format!("{} is missing", path.display())),
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "hw/ is stale; regenerate with scripts/regen-hw.sh and commit:\n  {}",
        stale.join("\n  ")
    );
}
