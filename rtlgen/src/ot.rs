//! Views of the OT predictor for its templates.

use crate::sv::{SvIdent, SvLit};
use crate::view::{port_views, MemberView, ParamView, PortView};
use crate::{header, GenError, GeneratedFile};
use askama::Template;
use golden::spec::{Block, OtEvent, PortSpec, Replacement, Spec};
use serde_json::json;

const PKG: &str = "ws_ot_pkg";
/// Top module of the OT block.
pub const TOP: &str = "ws_ot_predictor";

#[derive(Template)]
#[template(path = "ot/ws_ot_pkg.sv", escape = "none")]
struct PkgView {
    header: String,
    pkg: SvIdent,
    repl_members: Vec<MemberView>,
    event_msb: u32,
    event_members: Vec<MemberView>,
    params: Vec<ParamView>,
}

#[derive(Template)]
#[template(path = "ot/ws_ot_predictor.sv", escape = "none")]
struct ModuleView {
    header: String,
    module: SvIdent,
    pkg: SvIdent,
    params: Vec<ParamView>,
    ports: Vec<PortView>,
}

fn repl_member(r: Replacement) -> &'static str {
    match r {
        Replacement::Lru => "OtReplLru",
        Replacement::Plru => "OtReplPlru",
    }
}

fn params(spec: &Spec) -> Result<Vec<ParamView>, GenError> {
    let o = &spec.ot;
    let int = |name: &str, value: u32, meaning| ParamView::int("Ot", name, value, meaning);
    Ok(vec![
        int("NumEntries", o.entries, "table entries")?,
        int(
            "NumWays",
            o.ways,
            "ways per set (NumEntries: fully associative)",
        )?,
        ParamView {
            ty: "ot_repl_e",
            name: SvIdent::new("Replacement")?,
            pkg_name: SvIdent::new("OtReplacement")?,
            value: repl_member(o.replacement).to_string(),
            meaning: "replacement policy within a set",
        },
        int("MaxAddrs", o.addrs_per_entry, "addresses stored per entry")?,
        int(
            "Threshold",
            o.threshold,
            "an entry predicts while mispredicts <= Threshold",
        )?,
        int("NumDims", o.grid_dims, "grid dimensions tracked")?,
        int("PcW", o.pc_bits, "load PC width")?,
        int("LecW", o.lec_bits, "load execution count width")?,
        int("TbW", o.tb_bits, "thread-block id width per dimension")?,
        int("WarpW", o.warp_bits, "local warp id width")?,
        int("AddrW", o.addr_bits, "address width")?,
        int("StrideW", o.stride_bits, "signed stride width")?,
        int("CntW", o.counter_bits, "mispredict counter width")?,
    ])
}

type Rendered = (String, Vec<GeneratedFile>, serde_json::Value, Vec<PortSpec>);

pub(crate) fn render(spec: &Spec) -> Result<Rendered, GenError> {
    let o = &spec.ot;
    let ports = o.ports();
    let pkg_file = format!("{PKG}.sv");
    let top_file = format!("{TOP}.sv");
    let pkg = PkgView {
        header: header(spec, Block::Ot, &pkg_file),
        pkg: SvIdent::new(PKG)?,
        repl_members: vec![
            MemberView {
                name: SvIdent::new(repl_member(Replacement::Lru))?,
                literal: SvLit::new(1, 0)?,
            },
            MemberView {
                name: SvIdent::new(repl_member(Replacement::Plru))?,
                literal: SvLit::new(1, 1)?,
            },
        ],
        event_msb: OtEvent::BITS - 1,
        event_members: OtEvent::ALL
            .iter()
            .map(|e| {
                Ok(MemberView {
                    name: SvIdent::new(e.sv_name())?,
                    literal: SvLit::new(OtEvent::BITS, e.code().into())?,
                })
            })
            .collect::<Result<_, GenError>>()?,
        params: params(spec)?,
    };
    let module = ModuleView {
        header: header(spec, Block::Ot, &top_file),
        module: SvIdent::new(TOP)?,
        pkg: SvIdent::new(PKG)?,
        params: params(spec)?,
        ports: port_views(&ports)?,
    };
    let files = vec![
        GeneratedFile {
            name: pkg_file,
            contents: pkg.render()? + "\n",
        },
        GeneratedFile {
            name: top_file,
            contents: module.render()? + "\n",
        },
    ];
    let parameters = json!({
        "NumEntries": o.entries,
        "NumWays": o.ways,
        "NumSets": o.sets,
        "Replacement": o.replacement.name(),
        "MaxAddrs": o.addrs_per_entry,
        "Threshold": o.threshold,
        "NumDims": o.grid_dims,
        "PcW": o.pc_bits,
        "LecW": o.lec_bits,
        "TbW": o.tb_bits,
        "WarpW": o.warp_bits,
        "AddrW": o.addr_bits,
        "StrideW": o.stride_bits,
        "CntW": o.counter_bits,
        "derived": {
            "SetBits": o.set_bits,
            "WayBits": o.way_bits,
            "SlotW": o.slot_bits,
            "CountW": o.count_bits,
            "CalcW": o.calc_bits,
            "EntryBits": o.entry_bits(),
            "ReplBitsPerSet": o.repl_bits_per_set,
        }
    });
    Ok((TOP.to_string(), files, parameters, ports))
}
