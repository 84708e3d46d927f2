//! Pixels: an image's channels composited in their colours and windows, label images laid over
//! a picture in their colours, a variable's plane put north up and east right. Inputs are
//! planes of samples as a reader hands them out (little-endian elements of one numeric kind);
//! outputs are RGBA bytes, row by row, or values in the picture's order.
//!
//! The composite is the additive blend OME-Zarr viewers draw (vizarr, ome-ngff-validator):
//! each active channel's samples are windowed, `v = clamp((s − start) / (end − start), 0, 1)`
//! (`1 − v` when inverted; a window of no width gives 1 from its end up, a plane of one value
//! windowed from its own data 0), and `v × colour` is
//! added to each of R, G and B, saturating at 255. `tests/fixtures/views/reference.py` computes
//! the same rule with zarr-python and numpy: the browser tests compare the two.

use crate::error::{Result, ZomError};

/// The element kind of a plane's bytes: how a reader's typed array holds the samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleKind {
    /// `Int8Array`.
    Int8,
    /// `Uint8Array` (booleans too, as 0 and 1).
    Uint8,
    /// `Int16Array`.
    Int16,
    /// `Uint16Array`.
    Uint16,
    /// `Int32Array`.
    Int32,
    /// `Uint32Array`.
    Uint32,
    /// `BigInt64Array`.
    Int64,
    /// `BigUint64Array`.
    Uint64,
    /// `Float32Array`.
    Float32,
    /// `Float64Array`.
    Float64,
}

impl SampleKind {
    /// The kind named as the reader names typed arrays' element types (`"uint16"`, `"bool"`
    /// is `Uint8`); `None` for any other name.
    pub fn parse(name: &str) -> Option<SampleKind> {
        Some(match name {
            "int8" => SampleKind::Int8,
            "uint8" | "bool" => SampleKind::Uint8,
            "int16" => SampleKind::Int16,
            "uint16" => SampleKind::Uint16,
            "int32" => SampleKind::Int32,
            "uint32" => SampleKind::Uint32,
            "int64" => SampleKind::Int64,
            "uint64" => SampleKind::Uint64,
            "float32" => SampleKind::Float32,
            "float64" => SampleKind::Float64,
            _ => return None,
        })
    }

    /// Bytes per sample.
    pub fn size(self) -> usize {
        match self {
            SampleKind::Int8 | SampleKind::Uint8 => 1,
            SampleKind::Int16 | SampleKind::Uint16 => 2,
            SampleKind::Int32 | SampleKind::Uint32 | SampleKind::Float32 => 4,
            SampleKind::Int64 | SampleKind::Uint64 | SampleKind::Float64 => 8,
        }
    }
}

/// One plane of samples: `bytes` holds little-endian elements of `kind`.
#[derive(Clone, Copy, Debug)]
pub struct Plane<'a> {
    /// The samples' bytes.
    pub bytes: &'a [u8],
    /// Their element kind.
    pub kind: SampleKind,
}

impl<'a> Plane<'a> {
    /// How many samples the plane holds.
    pub fn len(&self) -> usize {
        self.bytes.len() / self.kind.size()
    }

    /// True when the plane holds no sample.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sample `i` as a number (64-bit integers rounded to the nearest `f64`).
    pub fn get(&self, i: usize) -> f64 {
        let size = self.kind.size();
        let Some(b) = self.bytes.get(i * size..(i + 1) * size) else {
            return f64::NAN;
        };
        let mut word = [0u8; 8];
        word[..size].copy_from_slice(b);
        match self.kind {
            SampleKind::Int8 => b[0] as i8 as f64,
            SampleKind::Uint8 => b[0] as f64,
            SampleKind::Int16 => i16::from_le_bytes([b[0], b[1]]) as f64,
            SampleKind::Uint16 => u16::from_le_bytes([b[0], b[1]]) as f64,
            SampleKind::Int32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            SampleKind::Uint32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            SampleKind::Float32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            SampleKind::Int64 => i64::from_le_bytes(word) as f64,
            SampleKind::Uint64 => u64::from_le_bytes(word) as f64,
            SampleKind::Float64 => f64::from_le_bytes(word),
        }
    }

    /// Every sample as a number, in order (as [`Plane::get`] gives them, one kind's loop).
    pub fn values(&self) -> Vec<f64> {
        fn each<const N: usize>(bytes: &[u8], f: impl Fn([u8; N]) -> f64) -> Vec<f64> {
            bytes
                .chunks_exact(N)
                .map(|b| f(b.try_into().unwrap_or([0; N])))
                .collect()
        }
        let b = self.bytes;
        match self.kind {
            SampleKind::Int8 => each::<1>(b, |w| w[0] as i8 as f64),
            SampleKind::Uint8 => each::<1>(b, |w| w[0] as f64),
            SampleKind::Int16 => each::<2>(b, |w| i16::from_le_bytes(w) as f64),
            SampleKind::Uint16 => each::<2>(b, |w| u16::from_le_bytes(w) as f64),
            SampleKind::Int32 => each::<4>(b, |w| i32::from_le_bytes(w) as f64),
            SampleKind::Uint32 => each::<4>(b, |w| u32::from_le_bytes(w) as f64),
            SampleKind::Float32 => each::<4>(b, |w| f32::from_le_bytes(w) as f64),
            SampleKind::Int64 => each::<8>(b, |w| i64::from_le_bytes(w) as f64),
            SampleKind::Uint64 => each::<8>(b, |w| u64::from_le_bytes(w) as f64),
            SampleKind::Float64 => each::<8>(b, f64::from_le_bytes),
        }
    }

    /// The least and greatest finite sample, or `None` when there is none.
    pub fn range(&self) -> Option<(f64, f64)> {
        finite_range(self.values().into_iter())
    }
}

/// The least and greatest finite value, or `None` when there is none.
pub fn finite_range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// How one channel is drawn in a composite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChannelStyle {
    /// Its colour, red, green, blue.
    pub color: [u8; 3],
    /// The window: samples at or below `start` are dark, at or above `end` full colour.
    /// `None`: the plane's own least and greatest finite samples.
    pub window: Option<(f64, f64)>,
    /// Dark where the samples are high.
    pub inverted: bool,
}

/// A channel's colour from the `RRGGBB` hex text OME-Zarr's `omero` writes (a leading `#`
/// allowed); `None` when it is not six hex digits.
pub fn parse_color(text: &str) -> Option<[u8; 3]> {
    let hex = text.strip_prefix('#').unwrap_or(text);
    if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
    Some([byte(0)?, byte(2)?, byte(4)?])
}

/// The additive composite of `planes`, each drawn in its `styles` entry, as RGBA (alpha 255):
/// `width × height × 4` bytes. Every plane must hold `width × height` samples.
pub fn composite(
    planes: &[Plane],
    styles: &[ChannelStyle],
    width: usize,
    height: usize,
) -> Result<Vec<u8>> {
    if planes.len() != styles.len() {
        return Err(invalid(format!(
            "{} planes and {} channel styles: each plane needs one",
            planes.len(),
            styles.len()
        )));
    }
    let pixels = pixel_count(width, height)?;
    for (i, plane) in planes.iter().enumerate() {
        check_plane(plane, pixels, &format!("plane {i}"))?;
    }
    let mut sums = vec![[0f64; 3]; pixels];
    for (plane, style) in planes.iter().zip(styles) {
        let samples = plane.values();
        let (start, end) = match style.window {
            Some(w) => w,
            None => finite_range(samples.iter().copied()).unwrap_or((0.0, 0.0)),
        };
        let span = end - start;
        let colour = style.color.map(f64::from);
        for (sum, &s) in sums.iter_mut().zip(&samples) {
            if !s.is_finite() {
                continue;
            }
            let mut v = if span > 0.0 {
                ((s - start) / span).clamp(0.0, 1.0)
            } else if style.window.is_none() {
                // A plane of one value, windowed from itself: nothing to tell apart.
                0.0
            } else if s >= end {
                1.0
            } else {
                0.0
            };
            if style.inverted {
                v = 1.0 - v;
            }
            for c in 0..3 {
                sum[c] += v * colour[c];
            }
        }
    }
    let mut rgba = Vec::with_capacity(pixels * 4);
    for sum in sums {
        for c in sum {
            // Sums are never negative: adding a half and truncating is `round`, without
            // the libm call wasm32 makes for it.
            rgba.push((c.min(255.0) + 0.5) as u8);
        }
        rgba.push(255);
    }
    Ok(rgba)
}

/// A label value's colour: red, green, blue, alpha.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabelColor {
    /// The label value.
    pub value: f64,
    /// Its colour.
    pub rgba: [u8; 4],
}

/// The colour of a label value that `image-label` gives none: fixed per value, so that a label
/// keeps its colour from picture to picture, and neighbouring values differ:
/// `((L × 67) mod 256, (L × 157) mod 256, (L × 223) mod 256)` for the integer part `L`.
pub fn default_label_color(value: f64) -> [u8; 4] {
    let n = if value.is_finite() {
        value.abs().floor() % 256.0
    } else {
        0.0
    } as u32;
    let byte = |k: u32| ((n * k) % 256) as u8;
    [byte(67), byte(157), byte(223), 255]
}

/// Lays the label image `labels` over `rgba` (a picture of as many pixels): each pixel whose
/// label is not 0 is mixed with its label's colour, `round(base × (1 − a) + colour × a)` with
/// `a = opacity × colour alpha / 255`; labels without a colour in `colors` get
/// [`default_label_color`].
pub fn overlay_labels(
    rgba: &mut [u8],
    labels: &Plane,
    colors: &[LabelColor],
    opacity: f64,
) -> Result<()> {
    let pixels = rgba.len() / 4;
    check_plane(labels, pixels, "the label plane")?;
    let opacity = if opacity.is_finite() {
        opacity.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut last: Option<(f64, [u8; 4])> = None;
    for (i, px) in rgba.chunks_exact_mut(4).enumerate() {
        let value = labels.get(i);
        if value == 0.0 || !value.is_finite() {
            continue;
        }
        let colour = match last {
            Some((v, c)) if v == value => c,
            _ => {
                let c = colors
                    .iter()
                    .find(|c| c.value == value)
                    .map(|c| c.rgba)
                    .unwrap_or_else(|| default_label_color(value));
                last = Some((value, c));
                c
            }
        };
        let a = opacity * f64::from(colour[3]) / 255.0;
        for c in 0..3 {
            let mixed = f64::from(px[c]) * (1.0 - a) + f64::from(colour[c]) * a;
            px[c] = mixed.round().clamp(0.0, 255.0) as u8;
        }
    }
    Ok(())
}

/// A plane of `width × height` values reordered so that its first row is the northern (or
/// top) edge and its first column the western (or left) edge: rows reversed when `flip_rows`
/// (a latitude that runs south to north), columns when `flip_columns`.
pub fn oriented(
    values: &[f64],
    width: usize,
    height: usize,
    flip_rows: bool,
    flip_columns: bool,
) -> Result<Vec<f64>> {
    let pixels = pixel_count(width, height)?;
    if values.len() != pixels {
        return Err(invalid(format!(
            "the plane holds {} values, not {width} × {height}",
            values.len()
        )));
    }
    let mut out = Vec::with_capacity(pixels);
    for row in 0..height {
        let from = if flip_rows { height - 1 - row } else { row };
        let line = &values[from * width..(from + 1) * width];
        if flip_columns {
            out.extend(line.iter().rev());
        } else {
            out.extend_from_slice(line);
        }
    }
    Ok(out)
}

fn pixel_count(width: usize, height: usize) -> Result<usize> {
    width
        .checked_mul(height)
        .filter(|n| n.checked_mul(4).is_some())
        .ok_or_else(|| {
            invalid(format!(
                "a picture of {width} × {height} pixels is too large"
            ))
        })
}

fn check_plane(plane: &Plane, pixels: usize, what: &str) -> Result<()> {
    if !plane.bytes.len().is_multiple_of(plane.kind.size()) || plane.len() != pixels {
        return Err(invalid(format!(
            "{what} holds {} bytes of {:?} samples, not the {pixels} samples of the picture",
            plane.bytes.len(),
            plane.kind
        )));
    }
    Ok(())
}

fn invalid(message: String) -> ZomError {
    ZomError::invalid_argument(message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn u16s(values: &[u16]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn channels_add_in_their_colours_within_their_windows() {
        let blue = u16s(&[0, 750, 1500, 3000]);
        let green = u16s(&[200, 200, 3000, 1600]);
        let planes = [
            Plane {
                bytes: &blue,
                kind: SampleKind::Uint16,
            },
            Plane {
                bytes: &green,
                kind: SampleKind::Uint16,
            },
        ];
        let styles = [
            ChannelStyle {
                color: [0, 0, 255],
                window: Some((0.0, 1500.0)),
                inverted: false,
            },
            ChannelStyle {
                color: [0, 255, 0],
                window: Some((200.0, 3000.0)),
                inverted: false,
            },
        ];
        let rgba = composite(&planes, &styles, 2, 2).unwrap();
        assert_eq!(
            rgba,
            vec![0, 0, 0, 255, 0, 0, 128, 255, 0, 255, 255, 255, 0, 128, 255, 255]
        );
    }

    #[test]
    fn a_window_from_the_data_and_inversion() {
        let bytes = [10u8, 20, 30];
        let plane = Plane {
            bytes: &bytes,
            kind: SampleKind::Uint8,
        };
        let style = ChannelStyle {
            color: [255, 255, 255],
            window: None,
            inverted: true,
        };
        let rgba = composite(&[plane], &[style], 3, 1).unwrap();
        assert_eq!(&rgba[..4], &[255, 255, 255, 255]);
        assert_eq!(&rgba[8..], &[0, 0, 0, 255]);
    }

    #[test]
    fn labels_are_mixed_over_the_picture() {
        let mut rgba = vec![100, 100, 100, 255, 100, 100, 100, 255];
        let labels = [0u8, 3];
        let plane = Plane {
            bytes: &labels,
            kind: SampleKind::Uint8,
        };
        let colors = [LabelColor {
            value: 3.0,
            rgba: [255, 0, 0, 255],
        }];
        overlay_labels(&mut rgba, &plane, &colors, 0.5).unwrap();
        assert_eq!(rgba, vec![100, 100, 100, 255, 178, 50, 50, 255]);
    }

    #[test]
    fn planes_of_the_wrong_size_are_refused() {
        let bytes = [0u8; 3];
        let plane = Plane {
            bytes: &bytes,
            kind: SampleKind::Uint16,
        };
        let style = ChannelStyle {
            color: [1, 2, 3],
            window: None,
            inverted: false,
        };
        let e = composite(&[plane], &[style], 1, 1).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        assert!(composite(&[], &[], usize::MAX, 3).is_err());
        let mut rgba = vec![0u8; 8];
        assert!(overlay_labels(&mut rgba, &plane, &[], 1.0).is_err());
    }

    #[test]
    fn planes_turn_north_up() {
        let values = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert_eq!(
            oriented(&values, 3, 2, true, false).unwrap(),
            vec![4.0, 5.0, 6.0, 1.0, 2.0, 3.0]
        );
        assert_eq!(
            oriented(&values, 3, 2, false, true).unwrap(),
            vec![3.0, 2.0, 1.0, 6.0, 5.0, 4.0]
        );
        assert!(oriented(&values, 2, 2, false, false).is_err());
    }

    #[test]
    fn colours_are_read_from_hex() {
        assert_eq!(parse_color("FF8000"), Some([255, 128, 0]));
        assert_eq!(parse_color("#00ff00"), Some([0, 255, 0]));
        assert_eq!(parse_color("red"), None);
        assert_eq!(parse_color("FF80é"), None);
    }
}
