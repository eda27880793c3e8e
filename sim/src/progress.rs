//! Progress on a terminal (indicatif): a spinner for work of unknown length (building a model,
//! shrinking), a bar of simulated cycles, a bar of a run's part done. Nothing is drawn when
//! `show` is off or stderr is not a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

fn target(show: bool) -> ProgressDrawTarget {
    if show {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    }
}

/// A spinner with a message, ticking on its own.
pub fn spinner(show: bool, message: &str) -> ProgressBar {
    let p = ProgressBar::with_draw_target(None, target(show));
    p.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    p.set_message(message.to_string());
    p.enable_steady_tick(std::time::Duration::from_millis(120));
    p
}

/// A bar of simulated cycles out of `limit` (a counter when there is no limit).
pub fn cycles(show: bool, limit: u64) -> ProgressBar {
    let bounded = limit != u64::MAX;
    let p = ProgressBar::with_draw_target(bounded.then_some(limit), target(show));
    let template = if bounded {
        "[{bar:32}] {human_pos}/{human_len} cycles, {rate}, eta {eta}"
    } else {
        "{spinner} {human_pos} cycles, {rate} ({elapsed})"
    };
    p.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key(
                "rate",
                |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    // Whole cycles per second (indicatif's `per_sec` prints four decimals).
                    let _ = write!(w, "{}/s", indicatif::HumanCount(s.per_sec() as u64));
                },
            )
            .progress_chars("=> "),
    );
    p
}

/// A bar of a run's part done, in thousandths, with a message (what is running) and an ETA.
pub fn fraction(show: bool) -> ProgressBar {
    let p = ProgressBar::with_draw_target(Some(FRACTION), target(show));
    p.set_style(
        ProgressStyle::with_template("[{bar:32}] {percent:>3}% {msg} ({elapsed}, eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    p
}

/// The length of a [`fraction`] bar.
pub const FRACTION: u64 = 1000;

/// A bar of finished jobs out of `len`, with a message (failures so far).
pub fn jobs(show: bool, len: u64) -> ProgressBar {
    let p = ProgressBar::with_draw_target(Some(len), target(show));
    p.set_style(
        ProgressStyle::with_template("[{bar:32}] {pos}/{len} jobs, {msg}, {elapsed} (eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    p.set_message("0 failed, 0 errors");
    p
}
