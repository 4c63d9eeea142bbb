//! `bushka pdn clock`: how engines spent their clocks in annotated games.

use anyhow::{anyhow, bail, Context, Result};
use plotters::prelude::*;
use selfplay::clock::TimeProfile;
use selfplay::pdn::PdnReader;
use std::path::{Path, PathBuf};

/// Reads the games, prints forfeits and clock use, writes the CSV and chart.
pub fn pdn_clock(files: &[PathBuf], csv: Option<&Path>, png: Option<&Path>) -> Result<()> {
    // Neither output may replace a record read, or the other output.
    let outputs = [("--csv", csv), ("--png", png)];
    let records: Vec<_> = files
        .iter()
        .map(|f| ("the records", Some(f.as_path())))
        .collect();
    selfplay::output::spare_inputs(&outputs, &records).map_err(anyhow::Error::msg)?;
    selfplay::output::writable_places(&outputs).map_err(anyhow::Error::msg)?;
    let mut profile = TimeProfile::default();
    for file in files {
        let f =
            std::fs::File::open(file).with_context(|| format!("cannot open {}", file.display()))?;
        for (i, rec) in PdnReader::new(std::io::BufReader::new(f)).enumerate() {
            let rec = rec.map_err(|e| anyhow!("{} game {}: {e}", file.display(), i + 1))?;
            profile.add(&rec);
        }
    }
    if profile.timed == 0 {
        bail!(
            "no game on a clock with the time of every move in its comments \
             (selfplay tc=... --annotate)"
        );
    }
    // No move time read (comments without `time`): say so, not zero.
    let least = profile.min_left.map_or_else(
        || "not known (no move time in the comments)".to_string(),
        |s| format!("{s:.3} s"),
    );
    outln!(
        "{} games, {} on a clock: {} lost on time, {:.1}% of the time given used (most by a side in one game {:.1}%), the least left after a move {least}",
        profile.games,
        profile.timed,
        profile.forfeits,
        100.0 * profile.share(),
        100.0 * profile.max_share,
    );
    outln!("{}", length_table(&profile));
    if let Some(path) = csv {
        selfplay::output::write_atomic(path, &profile.csv()).map_err(anyhow::Error::msg)?;
    }
    if let Some(path) = png {
        let bytes = draw(&profile).map_err(|e| anyhow!("chart {}: {e}", path.display()))?;
        engine::files::write_atomic(path, &bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Where the time went unused: a row per band of game lengths (moves made
/// by a side), with its sides, the share of their clock they used, their
/// part of all the time left unused and the median clock at the end.
fn length_table(p: &TimeProfile) -> String {
    use selfplay::clock::LENGTH_BANDS;
    let unused = p.allotted - p.used;
    let mut out = format!(
        "{:<16} {:>6} {:>11} {:>19} {:>22}",
        "moves of a side", "sides", "clock used", "of the unused time", "median left at the end"
    );
    for (i, band) in p.by_length.iter().enumerate() {
        let Some(median) = band.median_left() else {
            continue;
        };
        let range = match LENGTH_BANDS.get(i + 1) {
            Some(next) => format!("{}-{}", LENGTH_BANDS[i], next - 1),
            None => format!("{} or more", LENGTH_BANDS[i]),
        };
        let used = if band.given > 0.0 {
            format!("{:.1}%", 100.0 * band.used / band.given)
        } else {
            "-".into()
        };
        let part = if unused > 0.0 {
            format!("{:.1}%", 100.0 * (band.given - band.used) / unused)
        } else {
            "-".into()
        };
        out.push_str(&format!(
            "\n{range:<16} {:>6} {used:>11} {part:>19} {:>22}",
            band.sides,
            format!("{median:.3} s"),
        ));
    }
    out
}

/// The chart's size in pixels.
const SIZE: (u32, u32) = (900, 560);

/// Mean and longest time per move number (milliseconds), as PNG bytes.
fn draw(p: &TimeProfile) -> Result<Vec<u8>, String> {
    let rows: Vec<(f64, f64, f64)> = p
        .per_move
        .iter()
        .enumerate()
        .filter(|(_, r)| r.0 > 0)
        .map(|(n, &(count, total, max))| {
            ((n + 1) as f64, 1000.0 * total / count as f64, 1000.0 * max)
        })
        .collect();
    let top = rows.iter().map(|r| r.2).fold(1.0f64, f64::max) * 1.05;
    let last = rows.last().map_or(1.0, |r| r.0);
    tuner::plot::render_png(SIZE, |pixels| {
        let e = |x: DrawingAreaErrorKind<_>| x.to_string();
        let root = BitMapBackend::with_buffer(pixels, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(e)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "Time per move, {} games ({:.0}% of the clock used)",
                    p.timed,
                    100.0 * p.share()
                ),
                ("sans-serif", 24),
            )
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .build_cartesian_2d(1f64..last.max(2.0), 0f64..top)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc("move number of the side")
            .y_desc("milliseconds")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()
            .map_err(e)?;
        let series = [
            (
                "mean",
                BLUE,
                rows.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>(),
            ),
            ("longest", RED, rows.iter().map(|r| (r.0, r.2)).collect()),
        ];
        tuner::plot::draw_lines(&mut chart, series.into())?;
        root.present().map_err(e)
    })
}
