//! rtlgen
