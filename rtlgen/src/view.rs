//! View structs every block's templates share, built from a block's [`Interface`]: how a
//! parameter, an enumeration and a port are spelt in SystemVerilog is decided here and nowhere
//! else.

use crate::sv::{SvIdent, SvLit};
use crate::GenError;
use spec::{Dir, Elem, EnumDecl, Interface, Param, ParamValue, PortSpec, Role};

/// The SystemVerilog name of a spec parameter: `tb_w` -> `TbW`, `num_entries` -> `NumEntries`.
pub fn sv_param(name: &str) -> String {
    name.split('_')
        .map(|part| {
            let mut c = part.chars();
            match c.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// The SystemVerilog type name of a spec enumeration: `ot_event` -> `ot_event_e`.
pub fn sv_enum_type(name: &str) -> String {
    format!("{name}_e")
}

/// How a block spells its package constants and enumeration members.
pub(crate) struct Naming {
    /// Prefix of package constants (`Ot`: `OtNumEntries`).
    pub param_prefix: &'static str,
    /// Member prefix per enumeration (`ot_event` -> `OtEv`: `OtEvNone`).
    pub enum_prefixes: &'static [(&'static str, &'static str)],
}

impl Naming {
    fn member(&self, ty: &str, word: &str) -> Result<SvIdent, GenError> {
        let prefix = self
            .enum_prefixes
            .iter()
            .find(|(t, _)| *t == ty)
            .map(|(_, p)| *p)
            .ok_or_else(|| GenError::BadIdentifier(format!("{ty} (no member prefix)")))?;
        SvIdent::new(&format!("{prefix}{}", sv_param(word)))
    }
}

/// One parameter: a module parameter, a derived localparam, or a package constant.
pub(crate) struct ParamView {
    pub ty: String,
    pub name: SvIdent,
    pub pkg_name: SvIdent,
    pub value: String,
    pub meaning: &'static str,
    /// `,` between list items, nothing after the last.
    pub sep: &'static str,
}

/// One enum member.
pub(crate) struct MemberView {
    pub name: SvIdent,
    pub literal: SvLit,
}

/// One enumeration of the package.
pub(crate) struct EnumView {
    pub name: SvIdent,
    /// `logic` or `logic [N-1:0]`.
    pub base: String,
    pub members: Vec<MemberView>,
    pub meaning: &'static str,
}

/// One port declaration line.
pub(crate) struct PortView {
    pub decl: String,
    pub sep: &'static str,
    pub meaning: &'static str,
}

fn param_view(p: &Param, naming: &Naming) -> Result<ParamView, GenError> {
    let name = sv_param(p.name);
    let (ty, value) = match p.value {
        ParamValue::Int(v) => ("int unsigned".to_string(), v.to_string()),
        ParamValue::Word { ty, word } => (sv_enum_type(ty), naming.member(ty, word)?.to_string()),
    };
    Ok(ParamView {
        ty,
        pkg_name: SvIdent::new(&format!("{}{name}", naming.param_prefix))?,
        name: SvIdent::new(&name)?,
        value,
        meaning: p.meaning,
        sep: ",",
    })
}

/// Views of some parameters, the last without a separator.
fn param_list<'a>(
    list: impl Iterator<Item = &'a Param>,
    naming: &Naming,
) -> Result<Vec<ParamView>, GenError> {
    let mut v: Vec<ParamView> = list
        .map(|p| param_view(p, naming))
        .collect::<Result<_, _>>()?;
    if let Some(last) = v.last_mut() {
        last.sep = "";
    }
    Ok(v)
}

/// The parameters of one role, in declaration order.
pub(crate) fn params(
    i: &Interface,
    role: Role,
    naming: &Naming,
) -> Result<Vec<ParamView>, GenError> {
    param_list(i.params.iter().filter(|p| p.role == role), naming)
}

/// The parameters the package carries: the module's and every width derived from them
/// (storage figures, [`Role::Info`], are in the manifest only).
pub(crate) fn package_params(i: &Interface, naming: &Naming) -> Result<Vec<ParamView>, GenError> {
    param_list(i.params.iter().filter(|p| p.role != Role::Info), naming)
}

fn enum_view(e: &EnumDecl, naming: &Naming) -> Result<EnumView, GenError> {
    Ok(EnumView {
        name: SvIdent::new(&sv_enum_type(e.name))?,
        base: if e.bits == 1 {
            "logic".into()
        } else {
            format!("logic [{}:0]", e.bits - 1)
        },
        members: e
            .members
            .iter()
            .map(|(word, code)| {
                Ok(MemberView {
                    name: naming.member(e.name, word)?,
                    literal: SvLit::new(e.bits, *code)?,
                })
            })
            .collect::<Result<_, GenError>>()?,
        meaning: e.meaning,
    })
}

/// The package's enumerations.
pub(crate) fn enums(i: &Interface, naming: &Naming) -> Result<Vec<EnumView>, GenError> {
    i.enums.iter().map(|e| enum_view(e, naming)).collect()
}

fn port_view(p: &PortSpec, last: bool) -> Result<PortView, GenError> {
    SvIdent::new(p.name)?;
    let dir = match p.dir {
        Dir::In => "input ",
        Dir::Out => "output",
    };
    let elems = p
        .elems_param
        .map(|e| format!("[{}-1:0]", sv_param(e)))
        .unwrap_or_default();
    let ty = match p.elem {
        Elem::Bit => format!("logic {elems}"),
        Elem::Param(w) => format!("logic {elems}[{}-1:0]", sv_param(w)),
        Elem::Enum(t) => format!("{} {elems}", sv_enum_type(t)),
    };
    let ty = ty.trim_end().to_string();
    Ok(PortView {
        decl: format!("{dir} {ty} {}", p.name),
        sep: if last { "" } else { "," },
        meaning: p.meaning,
    })
}

/// Declarations of a port list, in order.
pub(crate) fn ports(ports: &[PortSpec]) -> Result<Vec<PortView>, GenError> {
    let n = ports.len();
    ports
        .iter()
        .enumerate()
        .map(|(i, p)| port_view(p, i + 1 == n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_names_are_upper_camel_case() {
        assert_eq!(sv_param("num_entries"), "NumEntries");
        assert_eq!(sv_param("tb_w"), "TbW");
        assert_eq!(sv_param("q_idx_w"), "QIdxW");
        assert_eq!(sv_param("threshold"), "Threshold");
    }
}
