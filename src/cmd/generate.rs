//! `generate`.

use crate::args::{blocks, GenerateArgs};
use crate::out::files_of;
use crate::CliResult;
use spec::output::Entry;
use std::process::ExitCode;

pub fn run(a: &GenerateArgs) -> CliResult<ExitCode> {
    let all = a.block == "all";
    let list = blocks(&a.block)?;
    // Every block is rendered and the folder checked before anything is written.
    let (spec, (generated, entries)) = a.config.resolve_with(|spec| {
        let mut generated = Vec::new();
        for block in &list {
            generated.push((block, block.generate(spec, &a.prefix)?));
        }
        let entries: Vec<(String, Entry)> = if all {
            generated
                .iter()
                .map(|(b, g)| (b.name.to_string(), Entry::Folder(files_of(g))))
                .collect()
        } else {
            generated.iter().flat_map(|(_, g)| files_of(g)).collect()
        };
        crate::out::check_folder(&a.out, &entries, "--out")?;
        Ok((generated, entries))
    })?;
    crate::out::replace_folder(&a.out, &entries, "--out")?;
    for (block, g) in &generated {
        let dir = if all {
            a.out.join(block.name)
        } else {
            a.out.clone()
        };
        outln!(
            "{block}: {} ({}) -> {}",
            block.title,
            spec.name,
            dir.display()
        )?;
        for (name, text) in g.all_files() {
            outln!(
                "  {name:24} {:>7} bytes  sha256 {}",
                text.len(),
                &rtlgen::sha256_hex(text.as_bytes())[..16]
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
