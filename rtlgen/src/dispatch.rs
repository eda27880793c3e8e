//! Views of the locality-aware dispatcher's decision unit for its templates.

use crate::sv::SvIdent;
use crate::view::{port_views, ParamView, PortView};
use crate::{header, GenError, GeneratedFile};
use askama::Template;
use golden::spec::{Block, PortSpec, Spec};
use serde_json::json;

const PKG: &str = "ws_dispatch_pkg";
/// Top module of the dispatcher.
pub const TOP: &str = "ws_dispatch";

#[derive(Template)]
#[template(path = "dispatch/ws_dispatch_pkg.sv", escape = "none")]
struct PkgView {
    header: String,
    pkg: SvIdent,
    params: Vec<ParamView>,
}

#[derive(Template)]
#[template(path = "dispatch/ws_dispatch.sv", escape = "none")]
struct ModuleView {
    header: String,
    module: SvIdent,
    pkg: SvIdent,
    params: Vec<ParamView>,
    ports: Vec<PortView>,
}

fn params(spec: &Spec) -> Result<Vec<ParamView>, GenError> {
    let d = &spec.dispatch;
    let p = |name: &str, value: u32, meaning| ParamView::int("Disp", name, value, meaning);
    Ok(vec![
        p("NumSms", d.sms, "SMs")?,
        p("NumSlots", d.slots, "thread-block slots per SM")?,
        p("NumQueue", d.queue_entries, "block-queue entries")?,
        p("NumArrays", d.arrays, "data arrays (rectangles) per block")?,
        p(
            "CoordW",
            d.coord_bits,
            "rectangle coordinate width, in cache lines",
        )?,
        p("IdW", d.id_bits, "block id width")?,
        p(
            "ScoredPerCycle",
            d.scored_per_cycle,
            "queue entries scored per cycle",
        )?,
    ])
}

pub(crate) fn render(
    spec: &Spec,
) -> Result<(String, Vec<GeneratedFile>, serde_json::Value, Vec<PortSpec>), GenError> {
    let d = &spec.dispatch;
    let ports = d.ports();
    let pkg_file = format!("{PKG}.sv");
    let top_file = format!("{TOP}.sv");
    let pkg = PkgView {
        header: header(spec, Block::Dispatch, &pkg_file),
        pkg: SvIdent::new(PKG)?,
        params: params(spec)?,
    };
    let module = ModuleView {
        header: header(spec, Block::Dispatch, &top_file),
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
        "NumSms": d.sms,
        "NumSlots": d.slots,
        "NumQueue": d.queue_entries,
        "NumArrays": d.arrays,
        "CoordW": d.coord_bits,
        "IdW": d.id_bits,
        "ScoredPerCycle": d.scored_per_cycle,
        "derived": {
            "SmW": d.sm_bits,
            "SlotW": d.slot_bits,
            "QIdxW": d.qidx_bits,
            "NumChunks": d.scan_cycles,
        }
    });
    Ok((TOP.to_string(), files, parameters, ports))
}
