//! The key schema: every configuration key's type, legal range and meaning.
//!
//! A key is declared once, next to its field, by [`section!`]: the macro writes the serde struct
//! and the section's [`KeyInfo`] table from the same list. Validation checks every value against
//! its key's [`Legal`] range (on the raw TOML value, before deserialising, so a value of any size
//! gets the range message), `warpsmith describe` prints the same table, and the rules between
//! keys are data too ([`Rule`]), printed by `describe` and checked by [`crate::Spec`].

use crate::SpecError;

/// What values a key accepts on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legal {
    /// An integer in `min..=max`.
    Range { min: u64, max: u64 },
    /// A power of two in `min..=max`.
    Pow2 { min: u64, max: u64 },
    /// One of the listed words.
    OneOf(&'static [&'static str]),
    /// `true` or `false`.
    Bool,
    /// Free text, checked by its own parser (named in the key's meaning).
    Text,
}

impl Legal {
    /// Whether an integer is legal (`false` for the non-integer kinds).
    pub fn allows_int(&self, v: i128) -> bool {
        match *self {
            Legal::Range { min, max } => (i128::from(min)..=i128::from(max)).contains(&v),
            Legal::Pow2 { min, max } => {
                (i128::from(min)..=i128::from(max)).contains(&v) && (v as u64).is_power_of_two()
            }
            Legal::OneOf(_) | Legal::Bool | Legal::Text => false,
        }
    }

    /// The smallest and largest legal integer.
    pub fn bounds(&self) -> Option<(u64, u64)> {
        match *self {
            Legal::Range { min, max } | Legal::Pow2 { min, max } => Some((min, max)),
            _ => None,
        }
    }

    /// What a value of this kind is called in messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Legal::Range { .. } | Legal::Pow2 { .. } => "integer",
            Legal::OneOf(_) => "word",
            Legal::Bool => "boolean",
            Legal::Text => "string",
        }
    }
}

impl std::fmt::Display for Legal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Legal::Range { min, max } => write!(f, "{min}..={max}"),
            Legal::Pow2 { min, max } => write!(f, "a power of two in {min}..={max}"),
            Legal::OneOf(words) => write!(f, "one of {}", words.join(", ")),
            Legal::Bool => write!(f, "true or false"),
            Legal::Text => write!(f, "text"),
        }
    }
}

/// One configuration key.
#[derive(Debug, Clone, Copy)]
pub struct KeyInfo {
    /// Dotted name, `section.field`.
    pub key: &'static str,
    /// TOML type: `integer`, `string` or `boolean`.
    pub ty: &'static str,
    pub legal: Legal,
    pub meaning: &'static str,
}

impl KeyInfo {
    /// Check a raw TOML value: its type, then its range. The message names the key, the value
    /// and what is legal.
    pub fn check(&self, value: &toml::Value) -> Result<(), SpecError> {
        let out_of_range = || SpecError::OutOfRange {
            key: self.key,
            value: value.to_string(),
            legal: self.legal.to_string(),
        };
        let ok = match (&self.legal, value) {
            (Legal::OneOf(words), toml::Value::String(s)) => {
                if !words.contains(&s.as_str()) {
                    return Err(SpecError::NotInSet {
                        key: self.key,
                        value: s.clone(),
                        legal: self.legal.to_string(),
                    });
                }
                true
            }
            (Legal::Bool, toml::Value::Boolean(_)) => true,
            (Legal::Text, toml::Value::String(_)) => true,
            (Legal::Range { .. } | Legal::Pow2 { .. }, toml::Value::Integer(i)) => {
                if !self.legal.allows_int(i128::from(*i)) {
                    return Err(out_of_range());
                }
                true
            }
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(SpecError::WrongType {
                key: self.key.to_string(),
                value: value.to_string(),
                expected: self.legal.kind(),
                legal: self.legal.to_string(),
            })
        }
    }
}

/// The TOML type name of a field type (what `describe` prints).
pub trait KeyType {
    const NAME: &'static str;
}

impl KeyType for u32 {
    const NAME: &'static str = "integer";
}
impl KeyType for bool {
    const NAME: &'static str = "boolean";
}
impl KeyType for String {
    const NAME: &'static str = "string";
}

/// A configuration section: a struct whose fields are keys.
pub trait Section {
    /// The keys of this section, in field order (flattened sub-sections included).
    fn keys() -> Vec<&'static KeyInfo>;
}

/// A rule between keys, checked after every key is in range.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// The rule as `describe` prints it.
    pub text: &'static str,
    /// `Err(why)` when the configuration breaks it, naming keys and values.
    pub check: fn(&crate::UserConfig) -> Result<(), String>,
}

/// Declares a configuration section: the serde struct and, next to each field, its key's legal
/// values and meaning (one line each). Each `@flatten NAME: TYPE;` inlines another section's keys.
#[macro_export]
macro_rules! section {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident in $section:literal {
            $( $field:ident : $ty:ty = $legal:expr, $meaning:literal; )*
            $( @flatten $ffield:ident : $fty:ty; )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
        $vis struct $name {
            $( #[doc = $meaning] pub $field: $ty, )*
            $( #[serde(flatten)] pub $ffield: $fty, )*
        }

        impl $name {
            /// This section's own keys.
            pub const KEYS: &'static [$crate::schema::KeyInfo] = &[
                $( $crate::schema::KeyInfo {
                    key: concat!($section, ".", stringify!($field)),
                    ty: <$ty as $crate::schema::KeyType>::NAME,
                    legal: $legal,
                    meaning: $meaning,
                }, )*
            ];
        }

        impl $crate::schema::Section for $name {
            fn keys() -> Vec<&'static $crate::schema::KeyInfo> {
                #[allow(unused_mut)]
                let mut v: Vec<&'static $crate::schema::KeyInfo> = Self::KEYS.iter().collect();
                $( v.extend(<$fty as $crate::schema::Section>::keys()); )*
                v
            }
        }
    };
}

/// Declares an enum whose values are words in the configuration (serde and [`Legal::OneOf`]
/// use the same list).
#[macro_export]
macro_rules! word_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $word:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        $vis enum $name {
            $( $(#[$vmeta])* #[serde(rename = $word)] $variant, )*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            /// Every value's word.
            pub const NAMES: &'static [&'static str] = &[$($word),*];
            /// This value's word.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $word,)*
                }
            }
            /// The value of a word.
            pub fn from_name(word: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|v| v.name() == word)
            }
        }

        impl $crate::schema::KeyType for $name {
            const NAME: &'static str = "string";
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

/// The closest key to a misspelt one among `keys` (for "did you mean" hints).
pub fn closest<'a>(keys: impl Iterator<Item = &'a str>, key: &str) -> Option<&'a str> {
    keys.map(|k| (edit_distance(k, key), k))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, k)| k)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
