//! The loss curve as a CSV file and a PNG plot (pure Rust: the bitmap
//! backend, text drawn with an embedded DejaVu font).

use crate::error::TuneError;
use crate::train::EpochLoss;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::path::Path;

/// The curve as CSV text: `epoch,train_loss,validation_loss` (empty when none).
pub fn curve_csv(curve: &[EpochLoss]) -> String {
    let mut out = String::from("epoch,train_loss,validation_loss\n");
    for e in curve {
        let v = if e.validation.is_nan() {
            String::new()
        } else {
            format!("{:.8}", e.validation)
        };
        out.push_str(&format!("{},{:.8},{v}\n", e.epoch, e.train));
    }
    out
}

/// Writes a text file atomically ([`engine::files`]).
pub fn write_atomic(path: &Path, text: &str) -> Result<(), TuneError> {
    engine::files::write_atomic(path, text.as_bytes()).map_err(|error| TuneError::Io {
        path: path.display().to_string(),
        error,
    })
}

/// Draws training and validation loss against the epoch into a PNG file.
pub fn draw_png(curve: &[EpochLoss], path: &Path) -> Result<(), TuneError> {
    let err = |e: String| TuneError::Plot {
        path: path.display().to_string(),
        message: e,
    };
    let png = draw(curve).map_err(err)?;
    engine::files::write_atomic(path, &png).map_err(|error| TuneError::Io {
        path: path.display().to_string(),
        error,
    })
}

/// The plot's size in pixels.
const SIZE: (u32, u32) = (900, 560);

/// The drawing itself, as PNG bytes; every failure becomes a message.
fn draw(curve: &[EpochLoss]) -> Result<Vec<u8>, String> {
    let finite = |x: f64| x.is_finite().then_some(x);
    let values: Vec<f64> = curve
        .iter()
        .flat_map(|e| [finite(e.train), finite(e.validation)])
        .flatten()
        .collect();
    if values.is_empty() {
        return Err("no finite loss to draw".into());
    }
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pad = ((hi - lo) * 0.05).max(hi.abs() * 1e-4).max(1e-9);
    let last = curve.last().map_or(1, |e| e.epoch.max(1));
    render_png(SIZE, |pixels| {
        draw_into(curve, pixels, (lo - pad)..(hi + pad), last)
    })
}

/// The one way this program turns a drawing into PNG bytes (the tuner's
/// loss plot, the atlas chart, the clock chart): the embedded font is
/// registered for plotters' `sans-serif`, `draw` fills an RGB buffer of
/// `size` pixels (through `BitMapBackend::with_buffer`), and the buffer is
/// encoded in memory, so the caller can write the file atomically.
pub fn render_png(
    size: (u32, u32),
    draw: impl FnOnce(&mut [u8]) -> Result<(), String>,
) -> Result<Vec<u8>, String> {
    register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| "the embedded font could not be read".to_string())?;
    let mut pixels = vec![0u8; size.0 as usize * size.1 as usize * 3];
    draw(&mut pixels)?;
    let image = image::RgbImage::from_raw(size.0, size.1, pixels)
        .ok_or("the chart's pixel buffer has the wrong size")?;
    let mut png = std::io::Cursor::new(Vec::new());
    image
        .write_to(&mut png, image::ImageOutputFormat::Png)
        .map_err(|e| e.to_string())?;
    Ok(png.into_inner())
}

/// A chart with two `f64` axes drawn into a bitmap.
pub type LineChart<'a, 'b> =
    ChartContext<'a, BitMapBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A named line of a chart: its legend name, colour and points.
pub type Line = (&'static str, RGBColor, Vec<(f64, f64)>);

/// Draws named lines (points with non-finite values left out) and their
/// legend box on `chart`.
pub fn draw_lines<'a, 'b: 'a>(
    chart: &mut LineChart<'a, 'b>,
    series: Vec<Line>,
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<_>| x.to_string();
    for (name, colour, points) in series {
        let points: Vec<(f64, f64)> = points.into_iter().filter(|p| p.1.is_finite()).collect();
        if points.is_empty() {
            continue;
        }
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
            .map_err(e)?
            .label(name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(e)
}

/// Draws the curves into an RGB buffer of [`SIZE`].
fn draw_into(
    curve: &[EpochLoss],
    pixels: &mut [u8],
    range: std::ops::Range<f64>,
    last: usize,
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<_>| x.to_string();
    let root = BitMapBackend::with_buffer(pixels, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Tuning loss (mean squared error)", ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..last as f64, range)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc("loss")
        .y_label_formatter(&|y| format!("{y:.5}"))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()
        .map_err(e)?;
    let series = [
        (
            "training",
            BLUE,
            curve
                .iter()
                .map(|c| (c.epoch as f64, c.train))
                .collect::<Vec<_>>(),
        ),
        (
            "validation",
            RED,
            curve
                .iter()
                .map(|c| (c.epoch as f64, c.validation))
                .collect(),
        ),
    ];
    draw_lines(&mut chart, series.into())?;
    root.present().map_err(e)?;
    Ok(())
}
