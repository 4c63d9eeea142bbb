//! The atlas chart: first moves ranked by White's Elo, each with its 95%
//! interval, as a PNG (drawn with plotters, encoded by
//! [`tuner::plot::render_png`]).

use crate::report::FirstMove;
use plotters::prelude::*;

/// Height of the chart in pixels; the width grows with the moves.
const HEIGHT: u32 = 560;

/// The chart as PNG bytes; every failure becomes a message.
pub fn first_moves_png(game: &str, moves: &[FirstMove]) -> Result<Vec<u8>, String> {
    if moves.is_empty() {
        return Err("no first move measured: nothing to draw".into());
    }
    let width = (160 + 40 * moves.len() as u32).max(800);
    // Open interval ends are drawn to the edge: the range comes from the
    // finite values.
    let finite: Vec<f64> = moves
        .iter()
        .flat_map(|m| {
            let (elo, low, high) = m.result.elo_interval();
            [elo, low, high]
        })
        .filter(|v| v.is_finite())
        .collect();
    let lo = finite.iter().copied().fold(0.0f64, f64::min) - 20.0;
    let hi = finite.iter().copied().fold(0.0f64, f64::max) + 20.0;
    tuner::plot::render_png((width, HEIGHT), |pixels| {
        draw_into(game, moves, pixels, (width, HEIGHT), lo..hi)
    })
}

/// Draws the points and intervals into an RGB buffer.
fn draw_into(
    game: &str,
    moves: &[FirstMove],
    pixels: &mut [u8],
    size: (u32, u32),
    range: std::ops::Range<f64>,
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<_>| x.to_string();
    let (lo, hi) = (range.start, range.end);
    let root = BitMapBackend::with_buffer(pixels, size).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let n = moves.len();
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{game}: first moves, White's Elo from the position (95% interval)"),
            ("sans-serif", 22),
        )
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5f64..n as f64 - 0.5, range)
        .map_err(e)?;
    let label = |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n {
            moves[i as usize].line.clone()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .x_labels(n)
        .x_label_formatter(&label)
        .x_desc("first move, ranked")
        .y_desc("Elo for White")
        .y_label_formatter(&|y| format!("{y:+.0}"))
        .draw()
        .map_err(e)?;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(-0.5, 0.0), (n as f64 - 0.5, 0.0)],
            BLACK.mix(0.5).stroke_width(1),
        )))
        .map_err(e)?;
    for (i, m) in moves.iter().enumerate() {
        let x = i as f64;
        let colour = match m.verdict {
            "gains" => GREEN,
            "loses" => RED,
            _ => BLUE,
        };
        let (point, low, high) = m.result.elo_interval();
        let (low, high) = (low.clamp(lo, hi), high.clamp(lo, hi));
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x, low), (x, high)],
                colour.stroke_width(2),
            )))
            .map_err(e)?;
        chart
            .draw_series(std::iter::once(Circle::new(
                (x, point.clamp(lo, hi)),
                4,
                colour.filled(),
            )))
            .map_err(e)?;
    }
    root.present().map_err(e)?;
    Ok(())
}
