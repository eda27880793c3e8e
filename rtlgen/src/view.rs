//! View structs every block's templates share, built from a block's [`Interface`]: how a
//! parameter, an enumeration and a port are spelt in SystemVerilog is decided here and nowhere
//! else.

use crate::sv::{SvIdent, SvLit};
use crate::GenError;
use spec::{Dir, Elem, EnumDecl, Interface, Param, ParamValue, PortSpec, Role};

/// The widest line a generated file may have, in columns.
pub const MAX_COLUMNS: usize = 100;

fn columns(s: &str) -> usize {
    s.chars().count()
}

/// `meaning` as `//` comment lines indented by `indent`, words wrapped at [`MAX_COLUMNS`]
/// (a word longer than a line stands alone); each line ends with a newline.
pub(crate) fn comment_lines(indent: &str, meaning: &str) -> String {
    let mut out = String::new();
    let mut line = format!("{indent}//");
    let bare = columns(&line);
    for word in meaning.split_whitespace() {
        if columns(&line) > bare && columns(&line) + 1 + columns(word) > MAX_COLUMNS {
            out.push_str(&line);
            out.push('\n');
            line = format!("{indent}//");
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The comment of a declaration line (`line`, its indentation included): after it when both fit
/// in [`MAX_COLUMNS`] (`(String::new(), trail)`), else wrapped on lines of its own before it
/// (`(lead, String::new())`).
fn comment_of(line: &str, meaning: &str) -> (String, String) {
    let trail = format!("  // {meaning}");
    if columns(line) + columns(&trail) <= MAX_COLUMNS {
        (String::new(), trail)
    } else {
        let indent: String = line.chars().take_while(|c| *c == ' ').collect();
        (comment_lines(&indent, meaning), String::new())
    }
}

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
    /// The package line's comment: lines before it, or the end of the line
    /// ([`comment_of`]).
    pub lead: String,
    pub trail: String,
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
    /// Its meaning as comment lines.
    pub comment: String,
}

/// One port declaration line.
pub(crate) struct PortView {
    pub decl: String,
    pub sep: &'static str,
    /// Its meaning: comment lines before it, or the end of its line ([`comment_of`]).
    pub lead: String,
    pub trail: String,
}

fn param_view(p: &Param, naming: &Naming) -> Result<ParamView, GenError> {
    let name = sv_param(p.name);
    let (ty, value) = match p.value {
        ParamValue::Int(v) => ("int unsigned".to_string(), v.to_string()),
        ParamValue::Word { ty, word } => (sv_enum_type(ty), naming.member(ty, word)?.to_string()),
    };
    let pkg_name = SvIdent::new(&format!("{}{name}", naming.param_prefix))?;
    let (lead, trail) = comment_of(
        &format!("  localparam {ty} {pkg_name} = {value};"),
        p.meaning,
    );
    Ok(ParamView {
        ty,
        pkg_name,
        name: SvIdent::new(&name)?,
        value,
        lead,
        trail,
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
        comment: comment_lines("  ", e.meaning),
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
    let decl = format!("{dir} {ty} {}", p.name);
    let sep = if last { "" } else { "," };
    let (lead, trail) = comment_of(&format!("  {decl}{sep}"), p.meaning);
    Ok(PortView {
        decl,
        sep,
        lead,
        trail,
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
    fn comments_trail_when_they_fit_and_wrap_above_otherwise() {
        let (lead, trail) = comment_of("  input logic a_i,", "short");
        assert_eq!((lead.as_str(), trail.as_str()), ("", "  // short"));
        let long = "word ".repeat(40);
        let (lead, trail) = comment_of("  input logic a_i,", &long);
        assert!(trail.is_empty());
        assert!(lead.lines().count() > 1);
        for l in lead.lines() {
            assert!(
                l.starts_with("  // ") && l.chars().count() <= MAX_COLUMNS,
                "{l}"
            );
        }
        let words: Vec<&str> = lead.split_whitespace().filter(|w| *w != "//").collect();
        assert_eq!(words, long.split_whitespace().collect::<Vec<_>>());
    }

    #[test]
    fn parameter_names_are_upper_camel_case() {
        assert_eq!(sv_param("num_entries"), "NumEntries");
        assert_eq!(sv_param("tb_w"), "TbW");
        assert_eq!(sv_param("q_idx_w"), "QIdxW");
        assert_eq!(sv_param("threshold"), "Threshold");
    }
}
