//! Address predictors that watch the SMs' global loads (seed 000): each is told, in order, of
//! every kernel launch, a query per warp global load an SM issues (its PC, load execution
//! count, block and warp) and an observation per line a load's requests send to the memory
//! partitions (what the SM's OT tap records), and counts how well it predicts (coverage and
//! accuracy). A predictor does not act on the GPU: it measures prediction, not prefetching.
//!
//! Each is an [`AddressPredictor`] in a file of its own, registered by one line in the
//! `predictors!` list below, which makes [`AnyPredictor`], the enum the GPU holds and
//! matches once per call (no `dyn`).

use crate::ot::{GpuTxn, OtFigures};
use spec::Spec;

/// An address predictor fed the GPU's stream of launches, queries and observations.
pub trait AddressPredictor: Sized {
    /// Its name.
    const NAME: &'static str;
    /// The predictor `spec` describes.
    fn new(spec: &Spec) -> Self;
    /// The GPU's transactions since the last call, in order (a cycle's, in SM order).
    fn feed(&mut self, txns: impl Iterator<Item = GpuTxn>);
    /// Its figures so far.
    fn figures(&self) -> OtFigures;
}

/// The registry: `module::Type` of each predictor, one line each. Its module is declared
/// with a plain `mod` line above the registry, where rustfmt finds it.
macro_rules! predictors {
    ($( $(#[$m:meta])* $module:ident::$ty:ident, )*) => {
        /// A registered address predictor.
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
            pub fn feed(&mut self, txns: impl Iterator<Item = GpuTxn>) {
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

mod ot;

predictors! {
    ot::Ot,
}

impl AnyPredictor {
    /// The predictor the GPU runs: the OT (seed 000), the one the configuration describes
    /// (`[ot]`). A second predictor to choose from comes with a key naming it.
    pub fn of(spec: &Spec) -> AnyPredictor {
        AnyPredictor::named(ot::Ot::NAME, spec).unwrap_or_else(|| unreachable!("registered"))
    }
}
