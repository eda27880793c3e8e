//! Address predictors that watch the SMs' global loads (seed 000): each is told, in order, of
//! every kernel launch, a query per warp global load an SM issues (its PC, load execution
//! count, block and warp) and an observation per line a load's requests send to the memory
//! partitions (what the SM's OT tap records), each with the SM it came from, and scores
//! itself with [`crate::ot::Coverage`], the one definition of coverage and accuracy. A
//! predictor does not act on the GPU: it measures prediction, not prefetching.
//!
//! Each is an [`AddressPredictor`] in a file of its own, registered by one line in the
//! `predictors!` list below and named by its `predictor.kind` word, which makes
//! [`AnyPredictor`], the enum the GPU holds and matches once per call (no `dyn`).

use crate::ot::{GpuTxn, OtFigures};
use spec::Spec;

/// A transaction of the GPU's stream and the SM that made it (a launch, made by none and
/// seen by every SM, carries 0).
pub type SmTxn = (u32, GpuTxn);

/// An address predictor fed the GPU's stream of launches, queries and observations.
pub trait AddressPredictor: Sized {
    /// Its `predictor.kind` word.
    const NAME: &'static str;
    /// The predictor `spec` describes.
    fn new(spec: &Spec) -> Self;
    /// The GPU's transactions since the last call, in order (a cycle's, in SM order).
    fn feed(&mut self, txns: impl Iterator<Item = SmTxn>);
    /// Its figures so far.
    fn figures(&self) -> OtFigures;
}

/// The registry: `module::Type` of each predictor, one line each. Its module is declared
/// with a plain `mod` line above the registry, where rustfmt finds it.
macro_rules! predictors {
    ($( $(#[$m:meta])* $module:ident::$ty:ident, )*) => {
        /// A registered address predictor. (The GPU holds one: the variants' sizes differ
        /// without cost.)
        #[allow(clippy::large_enum_variant)]
        pub enum AnyPredictor {
            $( $(#[$m])* $ty($module::$ty), )*
        }

        /// Every registered predictor's name, in registration order.
        pub const NAMES: &[&str] = &[$( $(#[$m])* <$module::$ty as AddressPredictor>::NAME, )*];

        impl AnyPredictor {
            /// The predictor named `name` (if registered), as `spec` describes it.
            pub fn named(name: &str, spec: &Spec) -> Option<AnyPredictor> {
                $( $(#[$m])*
                if name == <$module::$ty as AddressPredictor>::NAME {
                    return Some(AnyPredictor::$ty(<$module::$ty as AddressPredictor>::new(spec)));
                } )*
                None
            }

            /// [`AddressPredictor::feed`].
            pub fn feed(&mut self, txns: impl Iterator<Item = SmTxn>) {
                match self {
                    $( $(#[$m])* AnyPredictor::$ty(x) => x.feed(txns), )*
                }
            }

            /// [`AddressPredictor::figures`].
            pub fn figures(&self) -> OtFigures {
                match self {
                    $( $(#[$m])* AnyPredictor::$ty(x) => x.figures(), )*
                }
            }
        }
    };
}

mod cta_aware;
mod ot;

predictors! {
    ot::Ot,
    cta_aware::CtaAware,
}

impl AnyPredictor {
    /// The predictor the GPU runs, the one `predictor.kind` names.
    pub fn of(spec: &Spec) -> AnyPredictor {
        let name = spec.predictor.kind.name();
        AnyPredictor::named(name, spec)
            .unwrap_or_else(|| panic!("predictor.kind = {name} has no registered predictor"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `predictor.kind` value runs the registered predictor of its name.
    #[test]
    fn every_configurable_predictor_is_registered() {
        let s = spec::ConfigRequest::preset("tiny").resolve().unwrap();
        for &name in spec::PredictorKind::NAMES {
            assert!(NAMES.contains(&name), "{name}");
            assert!(AnyPredictor::named(name, &s).is_some());
        }
    }
}
