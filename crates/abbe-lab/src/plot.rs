//! Figures as SVG (plotters' SVG backend: text stays text, no font files, no
//! system libraries), with the axes, units and log scales of the papers'
//! figures. The paper's published points, when it gives numbers, are drawn
//! dashed beside ours.

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

/// One line of a figure.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Published values (dashed, hollow markers).
    pub published: bool,
}

/// A figure of the report.
#[derive(Clone, Debug)]
pub struct Figure {
    /// File name without `.svg` (`ghw11-fig8-decrypt-bls12-381`).
    pub id: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    pub series: Vec<Series>,
}

impl Figure {
    pub fn new(
        id: impl Into<String>,
        title: impl Into<String>,
        x: impl Into<String>,
        y: impl Into<String>,
    ) -> Figure {
        Figure {
            id: id.into(),
            title: title.into(),
            x_label: x.into(),
            y_label: y.into(),
            log_x: false,
            log_y: false,
            series: Vec::new(),
        }
    }

    pub fn log(mut self, x: bool, y: bool) -> Figure {
        self.log_x = x;
        self.log_y = y;
        self
    }

    pub fn line(&mut self, name: impl Into<String>, mut points: Vec<(f64, f64)>, published: bool) {
        points.retain(|(x, y)| x.is_finite() && y.is_finite());
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        if !points.is_empty() {
            self.series.push(Series {
                name: name.into(),
                points,
                published,
            });
        }
    }

    fn bounds(&self) -> ((f64, f64), (f64, f64)) {
        let pts = self.series.iter().flat_map(|s| s.points.iter());
        let usable = |v: f64, log: bool| v.is_finite() && (!log || v > 0.0);
        let xs: Vec<f64> = pts
            .clone()
            .map(|p| p.0)
            .filter(|&v| usable(v, self.log_x))
            .collect();
        let ys: Vec<f64> = pts
            .map(|p| p.1)
            .filter(|&v| usable(v, self.log_y))
            .collect();
        (span(&xs, self.log_x), span(&ys, self.log_y))
    }

    /// The figure as a standalone SVG document.
    pub fn to_svg(&self) -> Result<String, String> {
        let mut buf = String::new();
        {
            let root = SVGBackend::with_string(&mut buf, (760, 460)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| e.to_string())?;
            let ((x0, x1), (y0, y1)) = self.bounds();
            match (self.log_x, self.log_y) {
                (false, false) => self.draw(&root, x0..x1, y0..y1),
                (true, false) => self.draw(&root, (x0..x1).log_scale(), y0..y1),
                (false, true) => self.draw(&root, x0..x1, (y0..y1).log_scale()),
                (true, true) => self.draw(&root, (x0..x1).log_scale(), (y0..y1).log_scale()),
            }?;
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(buf)
    }

    fn draw<X, Y>(
        &self,
        root: &DrawingArea<SVGBackend<'_>, Shift>,
        x: X,
        y: Y,
    ) -> Result<(), String>
    where
        X: AsRangedCoord<Value = f64>,
        Y: AsRangedCoord<Value = f64>,
        X::CoordDescType: ValueFormatter<f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, ("sans-serif", caption_size(&self.title)))
            .margin(12)
            .x_label_area_size(46)
            .y_label_area_size(78)
            .build_cartesian_2d(x, y)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_label_formatter(&|v| short(*v))
            .y_label_formatter(&|v| short(*v))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(|e| e.to_string())?;
        let ours = self.series.iter().filter(|s| !s.published).count().max(1);
        let mut mine = 0usize;
        let mut theirs = 0usize;
        for s in &self.series {
            // A published series takes the colour of our series of the same
            // index, so "ours" and "paper" pairs match.
            let idx = if s.published {
                theirs += 1;
                (theirs - 1) % ours
            } else {
                mine += 1;
                mine - 1
            };
            let color = Palette99::pick(idx).to_rgba();
            let pts: Vec<(f64, f64)> = s
                .points
                .iter()
                .copied()
                .filter(|&(a, b)| (!self.log_x || a > 0.0) && (!self.log_y || b > 0.0))
                .collect();
            if s.published {
                chart
                    .draw_series(DashedLineSeries::new(
                        pts.clone(),
                        6,
                        4,
                        color.stroke_width(1),
                    ))
                    .map_err(|e| e.to_string())?
                    .label(&s.name)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(1))
                    });
                chart
                    .draw_series(
                        pts.iter()
                            .map(|&p| Circle::new(p, 3, color.stroke_width(1))),
                    )
                    .map_err(|e| e.to_string())?;
            } else {
                chart
                    .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                    .map_err(|e| e.to_string())?
                    .label(&s.name)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                    });
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                    .map_err(|e| e.to_string())?;
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(180, 180, 180))
            .label_font(("sans-serif", 12))
            .draw()
            .map_err(|e| e.to_string())?;
        Ok(())
    }
}

/// The caption's font size: 17 px, smaller for a title that would not fit
/// the 760 px figure (a sans-serif character is about 0.55 em wide).
fn caption_size(title: &str) -> f64 {
    let fits = 730.0 / (0.55 * title.chars().count().max(1) as f64);
    fits.clamp(10.0, 17.0)
}

/// An axis range covering `v` with a margin (multiplicative on log axes).
fn span(v: &[f64], log: bool) -> (f64, f64) {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || !hi.is_finite() {
        return if log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        let (lo, hi) = if hi / lo < 1.5 {
            (lo / 1.5, hi * 1.5)
        } else {
            (lo, hi)
        };
        (lo / 1.25, hi * 1.25)
    } else {
        let lo = lo.min(0.0);
        let pad = ((hi - lo) * 0.06).max(hi.abs() * 0.05).max(1e-9);
        (lo, hi + pad)
    }
}

/// Tick labels: short and exact enough (1e6 rather than 1000000.0).
pub fn short(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-3..1e5).contains(&a) {
        format!("{v:.0e}")
    } else if a >= 100.0 || (v.fract() == 0.0) {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_captions_shrink_to_fit() {
        assert_eq!(caption_size("GHW11 Fig. 8 — ABE decryption time"), 17.0);
        let long =
            "perazzo Fig. 15 — RE-Mote battery lifetime, software and hardware ECC, every scheme";
        let size = caption_size(long);
        assert!(size < 17.0 && size * 0.55 * long.chars().count() as f64 <= 730.0);
    }

    #[test]
    fn renders_linear_and_log_figures_with_labels() {
        for (lx, ly) in [(false, false), (true, true), (true, false), (false, true)] {
            let mut f = Figure::new("t", "Decryption", "attributes", "time (ms)").log(lx, ly);
            f.line(
                "ours",
                vec![(1.0, 2.0), (10.0, 20.0), (100.0, 200.0)],
                false,
            );
            f.line("paper", vec![(1.0, 3.0), (100.0, 300.0)], true);
            let svg = f.to_svg().unwrap();
            assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
            for text in ["Decryption", "attributes", "time (ms)", "ours", "paper"] {
                assert!(svg.contains(text), "{text} missing");
            }
            assert!(
                svg.contains("<polyline") || svg.contains("<path"),
                "no line drawn"
            );
        }
    }

    #[test]
    fn empty_figure_still_renders_axes() {
        let f = Figure::new("e", "Nothing yet", "x", "y").log(true, true);
        assert!(f.to_svg().unwrap().contains("Nothing yet"));
    }

    #[test]
    fn short_labels() {
        assert_eq!(short(1_000_000.0), "1e6");
        assert_eq!(short(20.0), "20");
        assert_eq!(short(2.5), "2.5");
        assert_eq!(short(0.25), "0.25");
    }
}
