//! The one progress bar of every long command (self-play, a cluster run,
//! tuning, an opening book, the atlas, mining tactics, perft, bench): the
//! unit counted, a bar, the count, the time taken and the time left, then
//! whatever the command has to say (the standing of a match, the line
//! measured). It is drawn on standard error, and only on a terminal. (A
//! stage whose length no one knows beforehand, an endgame table's backward
//! passes, turns its bar into a spinner.)

use indicatif::{ProgressBar, ProgressStyle};

/// A bar of `len` `unit`s (`games`, `positions`, `epochs`), or a hidden one
/// when not `shown` (`--quiet`, or a run whose caller draws nothing).
pub fn bar(len: u64, unit: &str, shown: bool) -> ProgressBar {
    if !shown {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    // Braces in the unit would be read as the template's keys.
    let unit: String = unit.chars().filter(|c| !matches!(c, '{' | '}')).collect();
    let template =
        format!("{unit} {{bar:30}} {{pos}}/{{len}} [{{elapsed_precise}}<{{eta_precise}}] {{msg}}");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_counts_its_units_and_a_hidden_one_draws_nothing() {
        let shown = bar(10, "games {x}", true);
        shown.inc(3);
        assert_eq!((shown.position(), shown.length()), (3, Some(10)));
        assert!(bar(10, "games", false).is_hidden());
    }
}
