//! Which address predictor the GPU runs (seed 000): the observation table (OT, its own section
//! `[ot]`) or the baseline seed 000 compares it with, the CTA-aware predictor of Jeon et al.,
//! and that baseline's keys.

use crate::schema::Legal;
use crate::{section, word_enum};

word_enum! {
    /// The address predictor the GPU runs.
    pub enum PredictorKind {
        /// Seed 000's observation table, shared by every SM (`[ot]`).
        Ot = "ot",
        /// Seed 000's baseline, Jeon et al.'s CTA-aware predictor: one per SM, a base address
        /// per thread block from its leading warp and a stride per load; golden model only.
        CtaAware = "cta-aware",
    }
}

section! {
    /// The address predictor the GPU runs, and the CTA-aware baseline's tables.
    pub struct PredictorConfig in "predictor" {
        kind: PredictorKind = Legal::OneOf(PredictorKind::NAMES),
            "the address predictor the SMs' loads are shown to: ot (seed 000's observation \
                table) or cta-aware (Jeon et al.'s per-SM predictor, seed 000's baseline; golden \
                model only, decision OT-12); both are scored by the same PCOV and PACC";
        cta_loads: u32 = Legal::Range { min: 1, max: 1024 },
            "CTA-aware predictor: load PCs each SM tracks a stride and a mispredict counter for \
                (its DIST table, LRU), and the base addresses each resident block keeps";
        cta_mispredict_threshold: u32 = Legal::Range { min: 0, max: 65534 },
            "CTA-aware predictor: an SM stops predicting a load once its own mispredict counter \
                for it exceeds this (seed 000: the counter is per SM, unlike the OT's)";
    }
}

/// The predictor keys, validated (every value in range is usable as it is).
pub type PredictorSpec = PredictorConfig;
