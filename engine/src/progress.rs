//! The one progress display of every long command (self-play, a cluster
//! run, tuning, an opening book, the atlas, mining tactics, perft, bench,
//! endgame tables): the unit counted, a bar, the count, the time taken and
//! the time left, then whatever the command has to say (the standing of a
//! match, the line measured); a stage whose length no one knows beforehand
//! (an endgame table's backward passes) shows a spinner in its place. It is
//! drawn on standard error, and only on a terminal.

use indicatif::{ProgressBar, ProgressStyle};

/// A bar of `len` `unit`s (`games`, `positions`, `epochs`), or a hidden one
/// when not `shown` (`--quiet`, or a run whose caller draws nothing).
pub fn bar(len: u64, unit: &str, shown: bool) -> ProgressBar {
    if !shown {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(&bar_template(unit)) {
        bar.set_style(style);
    }
    bar
}

/// Turns `bar` into a spinner for a stage of unknown length, still named
/// by `unit` (a hidden bar stays hidden).
pub fn spinner(bar: &ProgressBar, unit: &str) {
    if let Ok(style) = ProgressStyle::with_template(&spinner_template(unit)) {
        bar.set_style(style);
    }
}

/// The unit as a template shows it: braces would be read as its keys.
fn plain(unit: &str) -> String {
    unit.chars().filter(|c| !matches!(c, '{' | '}')).collect()
}

fn bar_template(unit: &str) -> String {
    format!(
        "{} {{bar:30}} {{human_pos}}/{{human_len}} [{{elapsed_precise}}<{{eta_precise}}] {{msg}}",
        plain(unit)
    )
}

fn spinner_template(unit: &str) -> String {
    format!("{} {{spinner}} {{msg}} [{{elapsed_precise}}]", plain(unit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_templates_read_and_name_their_unit() {
        for template in [bar_template("games {x}"), spinner_template("K{v}K")] {
            assert!(
                ProgressStyle::with_template(&template).is_ok(),
                "{template}"
            );
        }
        assert!(bar_template("games {x}").starts_with("games x {bar:30} "));
        assert!(spinner_template("K{v}K").starts_with("KvK {spinner} "));
    }

    #[test]
    fn a_bar_counts_its_units_and_a_hidden_one_draws_nothing() {
        let shown = bar(10, "games", true);
        shown.inc(3);
        assert_eq!((shown.position(), shown.length()), (3, Some(10)));
        let hidden = bar(10, "games", false);
        spinner(&hidden, "KvK");
        assert!(hidden.is_hidden());
    }
}
