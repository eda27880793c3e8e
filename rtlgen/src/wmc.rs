//! Views of the Warped-MC tables for their templates.

use crate::sv::{SvIdent, SvLit};
use crate::view::{port_views, MemberView, ParamView, PortView};
use crate::{header, GenError, GeneratedFile};
use askama::Template;
use golden::spec::{BankCmd, Block, Class, PortSpec, Spec};
use serde_json::json;

const PKG: &str = "ws_wmc_pkg";
/// Top module of the Warped-MC block.
pub const TOP: &str = "ws_warped_mc";

#[derive(Template)]
#[template(path = "wmc/ws_wmc_pkg.sv", escape = "none")]
struct PkgView {
    header: String,
    pkg: SvIdent,
    class_members: Vec<MemberView>,
    cmd_members: Vec<MemberView>,
    params: Vec<ParamView>,
}

#[derive(Template)]
#[template(path = "wmc/ws_warped_mc.sv", escape = "none")]
struct ModuleView {
    header: String,
    module: SvIdent,
    pkg: SvIdent,
    params: Vec<ParamView>,
    ports: Vec<PortView>,
}

fn params(spec: &Spec) -> Result<Vec<ParamView>, GenError> {
    let w = &spec.wmc;
    let p = |name: &str, value: u32, meaning| ParamView::int("Wmc", name, value, meaning);
    Ok(vec![
        p(
            "NumCtrl",
            w.controllers_per_wet,
            "controllers whose candidates the block serves",
        )?,
        p(
            "NumWetCtrl",
            w.wet_ctrls,
            "controllers whose requests the warp entry table counts",
        )?,
        p(
            "NumCand",
            w.candidates,
            "candidate requests per controller (its pending queue)",
        )?,
        p("NumBanks", w.banks, "banks per controller")?,
        p("SmW", w.sm_bits, "SM id width")?,
        p("WarpW", w.warp_bits, "warp-in-SM id width")?,
        p("PcW", w.pc_bits, "load PC width")?,
        p(
            "PcHashW",
            w.pc_hash_bits,
            "PC bits folded into the global warp id",
        )?,
        p("PendW", w.pending_bits, "pending-request counter width")?,
        p("RowsTracked", w.rows_tracked, "row scores per bank")?,
        p("ScoreW", w.score_bits, "row score width")?,
        p("PtSlots", w.pt_slots, "priority-table bits per bank")?,
        p("RowW", w.row_bits, "row number width")?,
    ])
}

pub(crate) fn render(
    spec: &Spec,
) -> Result<(String, Vec<GeneratedFile>, serde_json::Value, Vec<PortSpec>), GenError> {
    let w = &spec.wmc;
    let ports = w.ports();
    let pkg_file = format!("{PKG}.sv");
    let top_file = format!("{TOP}.sv");
    let member = |name: &str, code: u64| -> Result<MemberView, GenError> {
        Ok(MemberView {
            name: SvIdent::new(name)?,
            literal: SvLit::new(2, code)?,
        })
    };
    let pkg = PkgView {
        header: header(spec, Block::WarpedMc, &pkg_file),
        pkg: SvIdent::new(PKG)?,
        class_members: Class::ALL
            .iter()
            .map(|c| member(c.sv_name(), *c as u64))
            .collect::<Result<_, _>>()?,
        cmd_members: BankCmd::ALL
            .iter()
            .map(|c| member(c.sv_name(), *c as u64))
            .collect::<Result<_, _>>()?,
        params: params(spec)?,
    };
    let module = ModuleView {
        header: header(spec, Block::WarpedMc, &top_file),
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
        "NumCtrl": w.controllers_per_wet,
        "NumWetCtrl": w.wet_ctrls,
        "NumCand": w.candidates,
        "NumBanks": w.banks,
        "SmW": w.sm_bits,
        "WarpW": w.warp_bits,
        "PcW": w.pc_bits,
        "PcHashW": w.pc_hash_bits,
        "PendW": w.pending_bits,
        "RowsTracked": w.rows_tracked,
        "ScoreW": w.score_bits,
        "PtSlots": w.pt_slots,
        "RowW": w.row_bits,
        "derived": {
            "GwidW": w.gwid_bits,
            "WetEntries": w.wet_entries,
            "BankW": w.bank_bits,
            "CandW": w.cand_bits,
            "RowIdxW": w.row_idx_bits,
            "SlotW": w.slot_idx_bits,
        }
    });
    Ok((TOP.to_string(), files, parameters, ports))
}
