//! Block interfaces, declared once per block in its spec module: the parameters its RTL is
//! generated with (configuration values and every derived width), the enumerations on its
//! ports, and the ports themselves, whose widths name parameters. `rtlgen` decides how each is
//! spelt in SystemVerilog; the golden models encode frames by port name.

/// Direction of a block port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    In,
    Out,
}

/// What a parameter is to the generated RTL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A module parameter (its default is the package's value).
    Key,
    /// A width or count derived from the keys: computed once here, carried by the package, and
    /// a module localparam equal to the package's value.
    Derived,
    /// Carried by the package and the manifest for reference (storage figures); the module does
    /// not use it.
    Info,
}

/// The value of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamValue {
    Int(u64),
    /// A member of one of the block's enumerations ([`EnumDecl`]), by its word.
    Word {
        ty: &'static str,
        word: &'static str,
    },
}

/// One parameter of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    /// snake_case name (`tb_w`, `num_entries`); rtlgen spells it in SystemVerilog.
    pub name: &'static str,
    pub value: ParamValue,
    pub role: Role,
    pub meaning: &'static str,
}

impl Param {
    pub const fn key(name: &'static str, value: u64, meaning: &'static str) -> Param {
        Param {
            name,
            value: ParamValue::Int(value),
            role: Role::Key,
            meaning,
        }
    }

    pub const fn derived(name: &'static str, value: u64, meaning: &'static str) -> Param {
        Param {
            name,
            value: ParamValue::Int(value),
            role: Role::Derived,
            meaning,
        }
    }

    pub const fn info(name: &'static str, value: u64, meaning: &'static str) -> Param {
        Param {
            name,
            value: ParamValue::Int(value),
            role: Role::Info,
            meaning,
        }
    }

    /// The integer value (`None` for a word).
    pub fn int(&self) -> Option<u64> {
        match self.value {
            ParamValue::Int(v) => Some(v),
            ParamValue::Word { .. } => None,
        }
    }
}

/// An enumeration on a block's interface: a name, its width and its members' words and codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnumDecl {
    /// snake_case name (`ot_event`).
    pub name: &'static str,
    pub bits: u32,
    pub members: &'static [(&'static str, u64)],
    pub meaning: &'static str,
}

/// The type of one element of a port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    /// One bit.
    Bit,
    /// As wide as the named parameter.
    Param(&'static str),
    /// A member of the named enumeration.
    Enum(&'static str),
}

/// One port of a block: the interface the golden model, the RTL and the co-simulation share.
/// `elems > 1` (or `elems_param` set) marks a packed array of `elems` x `elem_bits`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortSpec {
    pub name: &'static str,
    pub dir: Dir,
    pub elems: u32,
    /// The parameter that counts the elements (`None`: a scalar port).
    pub elems_param: Option<&'static str>,
    pub elem_bits: u32,
    pub elem: Elem,
    pub meaning: &'static str,
}

impl PortSpec {
    /// Bits in all.
    pub fn width(&self) -> u32 {
        self.elems * self.elem_bits
    }
}

/// A block's interface: parameters, enumerations and ports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    pub params: Vec<Param>,
    pub enums: Vec<EnumDecl>,
    pub ports: Vec<PortSpec>,
}

impl Interface {
    /// Start an interface from its parameters and enumerations; add ports with
    /// [`Interface::input`] and [`Interface::output`].
    pub fn new(params: Vec<Param>, enums: Vec<EnumDecl>) -> Interface {
        Interface {
            params,
            enums,
            ports: Vec::new(),
        }
    }

    /// A parameter by name.
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// The value of an integer parameter that a port declaration names. A port naming no
    /// parameter of its block is a declaration error, caught by every test that builds the
    /// block's ports (`every_port_names_a_parameter_of_its_block`).
    fn value(&self, name: &str, port: &str) -> u32 {
        match self.param(name).and_then(Param::int) {
            Some(v) => u32::try_from(v).unwrap_or(u32::MAX),
            None => {
                panic!("port {port} names `{name}`, which is not an integer parameter of its block")
            }
        }
    }

    fn bits(&self, elem: Elem, port: &str) -> u32 {
        match elem {
            Elem::Bit => 1,
            Elem::Param(p) => self.value(p, port),
            Elem::Enum(e) => match self.enums.iter().find(|d| d.name == e) {
                Some(d) => d.bits,
                None => panic!("port {port} names `{e}`, which is not an enumeration of its block"),
            },
        }
    }

    fn port(
        mut self,
        dir: Dir,
        name: &'static str,
        elems: Option<&'static str>,
        elem: Elem,
        meaning: &'static str,
    ) -> Interface {
        let p = PortSpec {
            name,
            dir,
            elems: elems.map_or(1, |e| self.value(e, name)),
            elems_param: elems,
            elem_bits: self.bits(elem, name),
            elem,
            meaning,
        };
        self.ports.push(p);
        self
    }

    /// Add an input port: `elems` names the parameter counting a packed array's elements.
    pub fn input(
        self,
        name: &'static str,
        elems: Option<&'static str>,
        elem: Elem,
        meaning: &'static str,
    ) -> Interface {
        self.port(Dir::In, name, elems, elem, meaning)
    }

    /// Add an output port.
    pub fn output(
        self,
        name: &'static str,
        elems: Option<&'static str>,
        elem: Elem,
        meaning: &'static str,
    ) -> Interface {
        self.port(Dir::Out, name, elems, elem, meaning)
    }
}
