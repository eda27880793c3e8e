//! View structs shared by every block's templates.

use crate::sv::{SvIdent, SvLit};
use crate::GenError;
use golden::spec::{Dir, PortSpec, SvWidth};

/// One typed module parameter and the package constant that gives its default.
pub(crate) struct ParamView {
    pub ty: &'static str,
    pub name: SvIdent,
    pub pkg_name: SvIdent,
    pub value: String,
    pub meaning: &'static str,
}

impl ParamView {
    /// An `int unsigned` parameter `name` with package constant `{prefix}{name}`.
    pub fn int(
        prefix: &str,
        name: &str,
        value: u32,
        meaning: &'static str,
    ) -> Result<ParamView, GenError> {
        Ok(ParamView {
            ty: "int unsigned",
            name: SvIdent::new(name)?,
            pkg_name: SvIdent::new(&format!("{prefix}{name}"))?,
            value: value.to_string(),
            meaning,
        })
    }
}

/// One enum member.
pub(crate) struct MemberView {
    pub name: SvIdent,
    pub literal: SvLit,
}

/// One port declaration line.
pub(crate) struct PortView {
    pub decl: String,
    pub sep: &'static str,
    pub meaning: &'static str,
}

fn port_view(p: &PortSpec, last: bool) -> Result<PortView, GenError> {
    SvIdent::new(p.name)?;
    let dir = match p.dir {
        Dir::In => "input ",
        Dir::Out => "output",
    };
    let elems = p.sv_elems.map(|e| format!("[{e}-1:0]")).unwrap_or_default();
    let ty = match p.sv_bits {
        SvWidth::Bit => format!("logic {elems}"),
        SvWidth::Param(w) => format!("logic {elems}[{w}-1:0]"),
        SvWidth::Type(t) => format!("{t} {elems}"),
    };
    let ty = ty.trim_end().to_string();
    Ok(PortView {
        decl: format!("{dir} {ty} {}", p.name),
        sep: if last { "" } else { "," },
        meaning: p.meaning,
    })
}

/// Declarations of a port list, in order.
pub(crate) fn port_views(ports: &[PortSpec]) -> Result<Vec<PortView>, GenError> {
    let n = ports.len();
    ports
        .iter()
        .enumerate()
        .map(|(i, p)| port_view(p, i + 1 == n))
        .collect()
}
